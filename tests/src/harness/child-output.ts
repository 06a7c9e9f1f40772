import type { ChildProcess } from 'node:child_process';

/** Everything a child process writes (stdout and stderr, interleaved), for failure messages. */
export function collectOutput(child: ChildProcess): () => string {
  let output = '';
  const append = (chunk: Buffer | string) => {
    output += chunk;
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  return () => output;
}
