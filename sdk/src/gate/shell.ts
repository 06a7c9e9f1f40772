/**
 * Just enough shell reading for permission rules: a command line split into the simple commands
 * an operator joins (`a && b`, `a | b`, `a; b`, newlines), outside quotes, with process wrappers
 * (`nohup`, `nice`, `timeout 10`, `time`, leading `VAR=value`) taken off each.
 */

const OPERATORS = ['&&', '||', '|&', ';', '|', '&', '\n'];

/** The simple commands of a command line, trimmed, empty ones left out. */
export function splitCommands(line: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const char = line[i] as string;
    if (quote) {
      if (char === '\\' && quote === '"' && i + 1 < line.length) {
        current += char + line[++i];
        continue;
      }
      if (char === quote) quote = null;
      current += char;
      continue;
    }
    if (char === '\\' && i + 1 < line.length) {
      current += char + line[++i];
      continue;
    }
    if (char === '"' || char === "'") {
      quote = char;
      current += char;
      continue;
    }
    const operator = OPERATORS.find((op) => line.startsWith(op, i));
    // `>&2`, `2>&1`, `&>`: redirections, not the background operator.
    const redirection = char === '&' && (line[i - 1] === '>' || line[i + 1] === '>');
    if (operator && !redirection) {
      parts.push(current);
      current = '';
      i += operator.length - 1;
      continue;
    }
    current += char;
  }
  parts.push(current);
  return parts.map((part) => stripWrappers(part.trim())).filter((part) => part !== '');
}

const WRAPPERS: RegExp[] = [
  /^nohup\s+/,
  /^time\s+/,
  /^nice(?:\s+-n\s*-?\d+|\s+-\d+)?\s+/,
  /^timeout(?:\s+-{1,2}[\w-]+(?:[=\s]\S+)?)*\s+\d+(?:\.\d+)?[smhd]?\s+/,
  /^[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|\S*)\s+/,
];

function stripWrappers(command: string): string {
  let rest = command;
  for (let changed = true; changed; ) {
    changed = false;
    for (const wrapper of WRAPPERS) {
      const next = rest.replace(wrapper, '');
      if (next !== rest) {
        rest = next;
        changed = true;
      }
    }
  }
  return rest;
}

/** Whether a command line runs other commands out of sight of a rule: `$(…)`, backticks, `<(…)`. */
export function hasSubstitution(line: string): boolean {
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (quote === "'") {
      if (char === "'") quote = null;
      continue;
    }
    if (char === '\\') {
      i++;
      continue;
    }
    if (char === "'" && !quote) quote = "'";
    else if (char === '"') quote = quote ? null : '"';
    else if (char === '`') return true;
    else if (char === '$' && line[i + 1] === '(') return true;
    else if (!quote && (char === '<' || char === '>') && line[i + 1] === '(') return true;
  }
  return false;
}
