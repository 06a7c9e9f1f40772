import { ASSIGNMENT_USAGE } from './assignment';

/** The text of `beckon --help`. */
export const USAGE = `Usage: beckon <command> [options]

Commands:
  notify <title>              create a notification
  ask <title> (--field id:type:label ... | --form form.json) [--wait [--timeout 60] [--yes-if field=value]]
                              ask a question; --wait prints the outcome as JSON (--json: all of it),
                              and on stderr the item's link and progress while it waits
      [--on-timeout expire|dismiss|answer:<json values>] what happens at --deadline
      [--approvals <N or JSON {required, field, approve_value, exclude_creator, any_rejection_closes}>]
  list                        list items (--status --channel --q --limit --cursor --archived --snoozed)
  get <id>                    show an item
  ack <id> | dismiss <id>     acknowledge / dismiss an item
  snooze <id> <until>         hide an item until an ISO time or for a duration (30m, 2h, 1d)
  comment <id> <text>         add a comment
${ASSIGNMENT_USAGE}  mcp                         serve the Beckon agent tools over stdio (MCP), forwarded to BECKON_URL/mcp
                              (runs the @beckon/mcp package, installed separately);
                              [--tool-names auto|dotted|underscore] as beckon-mcp's
  gate [--policy FILE] | gate install   a coding agent's tool-call hook: rules, or ask people (beckon gate --help)
  audit verify [--file audit.jsonl]     check the organization's audit chain (beckon audit --help)
  verify <receipt.jws>        check a decision's signed receipt (beckon verify --help)

Item options (notify, ask): --message, -m <text>  --level info|warning|error|success
  --priority 0-4  --channel <name or id>  --tag <tag> (repeatable)  --metadata <json>
  --deadline <ISO time or duration>
Global options: --url <url> (BECKON_URL)  --token <token> (BECKON_TOKEN)  --json  --help  --version

Exit codes: 0 success or answered yes, 1 error, 2 dismissed, 3 expired, 4 timeout, 5 withdrawn,
  6 answered no: the form's only yes/no (or checkbox) field is false, or --yes-if field=value did
  not match (a multiselect matches when one of its values does). Other forms: any answer is 0.
`;
