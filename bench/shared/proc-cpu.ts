// CPU time of processes on this machine, from /proc: what each party of a benchmark (the tool, the object-store
// servers, PostgreSQL) spent while it ran. On a machine with few cores the servers' share bounds how fast any
// tool can finish, and these figures say by how much.
import fs from 'node:fs';

/** Linux reports /proc times in clock ticks of USER_HZ, which is 100 on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;

function statFields(pid: number): string[] | null {
  try {
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis are fixed.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** User + system seconds of one process so far (0 once it has gone). */
export function cpuSecondsOf(pid: number | undefined): number {
  if (pid === undefined) return 0;
  const fields = statFields(pid);
  // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the command name.
  return fields ? (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND : 0;
}

/**
 * User + system seconds of process `pid` and its children, alive (their own times) or reaped (its cutime/cstime):
 * one PostgreSQL server's work (its postmaster and backends) apart from any other server on the machine.
 */
export function cpuSecondsOfTree(pid: number): number {
  const own = statFields(pid);
  if (!own) return 0;
  let total = [11, 12, 13, 14].reduce((sum, index) => sum + Number(own[index]), 0) / TICKS_PER_SECOND;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    // The parent pid is field 4 of the whole line, 2 after the command name.
    if (fields && Number(fields[1]) === pid) total += cpuSecondsOf(Number(entry));
  }
  return total;
}

/** Seconds all cores together have been busy (user, nice, system, irq, softirq, steal) since boot. */
function machineBusySeconds(): number {
  const fields = (fs.readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1);
  const [user, nice, system, , , irq, softirq, steal] = fields.map(Number);
  return (
    [user, nice, system, irq, softirq, steal].reduce<number>((sum, value) => sum + (value ?? 0), 0) /
    TICKS_PER_SECOND
  );
}

/** CPU seconds the given processes (by pid) and the whole machine spent between `cpuMeter(…)` and `read()`. */
export function cpuMeter(
  processes: Array<{ pid: number | undefined }>,
): () => { processes: number; machine: number } {
  const ofProcesses = () => processes.reduce((sum, process) => sum + cpuSecondsOf(process.pid), 0);
  const processes0 = ofProcesses();
  const machine0 = machineBusySeconds();
  return () => ({ processes: ofProcesses() - processes0, machine: machineBusySeconds() - machine0 });
}
