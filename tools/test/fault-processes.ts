// The fault suite's handle on servers it did not start itself (the harness's FerretDB, a Redis
// of the Sentinel group): the process listening on a port, found through /proc (Linux).
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

/** The inodes of the sockets listening on `port` (IPv4 and IPv6). */
function listeningInodes(port: number): Set<string> {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is HOST:PORT in hex; state 0A is LISTEN; the inode is the tenth field.
      if (fields[1]?.endsWith(`:${hex}`) && fields[3] === '0A' && fields[9]) {
        inodes.add(fields[9]);
      }
    }
  }
  return inodes;
}

/** The pid of the process listening on `port` on this machine; throws when there is none. */
export function pidListeningOn(port: number): number {
  const sockets = new Set([...listeningInodes(port)].map((inode) => `socket:[${inode}]`));
  if (sockets.size === 0) throw new Error(`nothing listens on port ${port}`);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (sockets.has(readlinkSync(`/proc/${entry}/fd/${fd}`))) return Number(entry);
      } catch {
        // The descriptor closed meanwhile.
      }
    }
  }
  throw new Error(`no process found for the socket listening on port ${port}`);
}

/** SIGSTOPs the process listening on `port`; answers a function that SIGCONTs it (once). */
export function pauseListener(port: number): { pid: number; resume: () => void } {
  const pid = pidListeningOn(port);
  process.kill(pid, 'SIGSTOP');
  let resumed = false;
  return {
    pid,
    resume: () => {
      if (resumed) return;
      resumed = true;
      process.kill(pid, 'SIGCONT');
    },
  };
}
