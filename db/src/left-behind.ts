import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The embedded database's directory belongs to another Beckon that is running. */
export class DataDirInUse extends Error {
  override name = 'DataDirInUse';
  readonly code = 'DATA_DIR_IN_USE';
  constructor(databaseDir: string, owner: number) {
    super(
      `${databaseDir} is in use by the Beckon running as process ${owner}: stop it first, or give this one another DATA_DIR`,
    );
  }
}

/**
 * Makes this process the owner of the embedded PostgreSQL on `databaseDir`. A server still running
 * there whose parent is not the process recorded as its owner was left behind by an owner that
 * ended without stopping it (killed with SIGKILL, say): it is stopped (fast shutdown: its
 * committed work is kept) so this process can start its own. A server whose owner is alive is
 * another Beckon's: that is an error naming it.
 */
export async function claimDatabaseDir(databaseDir: string, log: (line: string) => void): Promise<void> {
  const ownerFile = `${databaseDir}.owner`;
  const server = await runningServer(databaseDir);
  if (server) {
    const owner = Number((await readFile(ownerFile, 'utf8').catch(() => '')).trim());
    if (server.parent === owner) throw new DataDirInUse(databaseDir, owner);
    log(
      `stopping the PostgreSQL (process ${server.pid}) left running on ${databaseDir} by a stopped launcher`,
    );
    process.kill(server.pid, 'SIGINT');
    await exited(server.pid, 60_000);
  }
  await writeFile(ownerFile, `${process.pid}\n`);
}

/**
 * The postmaster serving `databaseDir`, with its parent process. Only Linux's /proc says which
 * directory a process serves; elsewhere nothing is stopped and PostgreSQL's own lock reports it.
 */
async function runningServer(databaseDir: string) {
  const pidFile = await readFile(path.join(databaseDir, 'postmaster.pid'), 'utf8').catch(() => '');
  const pid = Number(pidFile.split('\n')[0]);
  if (!pid) return undefined;
  // The process id may belong to another program since: it must be a postgres on this directory.
  const command = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  if (!command.split('\0').includes(databaseDir)) return undefined;
  const status = await processStatus(pid);
  return status && status.state !== 'Z' ? { pid, parent: status.parent } : undefined;
}

/** State and parent from /proc/<pid>/stat ("pid (name) state ppid ...", the name may hold spaces). */
async function processStatus(pid: number) {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  if (!stat) return undefined;
  const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state, parent: Number(parent) };
}

async function exited(pid: number, deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    // Gone, or a zombie its new parent has not reaped yet.
    if (((await processStatus(pid))?.state ?? 'Z') === 'Z') return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the PostgreSQL left running (process ${pid}) did not stop within ${deadlineMs} ms`);
}
