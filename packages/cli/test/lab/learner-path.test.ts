import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANG_MS, root } from '../run-klog.js';

// The learner's path as the README and docs/lab.mdx write it: `klog` typed in a shell, from the folder they
// say, after the one line that puts `klog` on PATH (`npm install -g ./packages/cli` at the repository's
// root). Here npm's global folder is a temporary one (`--prefix`), so the machine's own is left alone.
const scratch = mkdtempSync(join(tmpdir(), 'klog-learner-'));
const prefix = join(scratch, 'npm-global');
const home = join(scratch, 'home');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** What a shell with npm's global bin folder on PATH runs: `klog` by name, in `cwd`. */
function shell(command: string, cwd: string) {
  const run = spawnSync('sh', ['-c', command], {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      PATH: `${join(prefix, 'bin')}${delimiter}${process.env['PATH'] ?? ''}`,
      NO_COLOR: '1',
      FORCE_COLOR: undefined,
    },
    timeout: HANG_MS,
    killSignal: 'SIGKILL',
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

beforeAll(() => {
  mkdirSync(home);
  // Offline: npm links the folder rather than fetching anything.
  const install = shell(`npm install -g --offline --prefix ${JSON.stringify(prefix)} ./packages/cli`, root);
  expect(install.stderr).not.toMatch(/ERR!/);
  expect(install.status).toBe(0);
  expect(existsSync(join(prefix, 'bin', 'klog'))).toBe(true);
});

describe('`klog` on PATH, as the lab page writes it', () => {
  it('klog lab init my-lab; cd my-lab; klog lab check; klog lab status', () => {
    const init = shell('klog lab init my-lab', home);
    expect(init.status).toBe(0);
    // Typed as `klog`: no line about how to get `klog`.
    expect(init.stdout).toBe(
      'เขียน my-lab/lab.ts แล้ว\nเขียน my-lab/README.md แล้ว\n\nต่อไป: cd my-lab เติม TODO ใน lab.ts แล้วรัน klog lab check\n',
    );
    const lab = join(home, 'my-lab');
    const check = shell('klog lab check --seed 5', lab);
    expect(check.status).toBe(1);
    expect(check.stdout).toMatch(/^klog lab check lab\.ts · seed 5\n/);
    expect(check.stdout).toContain('รันซ้ำ    klog lab check lab.ts --seed 5');
    expect(check.stderr).toMatch(/^klog: lab check: stage 1 first-append ไม่ผ่าน \(รายงานอยู่ข้างบน\)\n$/m);
    const status = shell('klog lab status', lab);
    expect(status.status).toBe(0);
    expect(status.stdout).toMatch(/^lab\.ts: ผ่าน 0 จาก \d+ stage\n/);
  });

  it('a wrong path says what was looked for, and where', () => {
    const wrong = shell('klog lab check', home);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toBe(
      `klog: lab check: lab.ts: ไม่มี file นี้ (หาที่ ${join(home, 'lab.ts')}; klog lab init <folder> เขียน lab.ts ให้)\n`,
    );
  });
});

/** The `sh` blocks of the README's section `title`, in order, each a list of command lines without comments. */
function readmeBlocks(title: string): string[][] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const from = readme.indexOf(`## ${title}`);
  const section = readme.slice(from, readme.indexOf('\n## ', from + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) =>
    m[1]!
      .split('\n')
      .map((l) => l.replace(/\s{2,}# .*$/, '').trimEnd())
      .filter((l) => l !== ''),
  );
}

/** The commands of one block: what goes in terminal 1 (the broker) and what goes in terminal 2. */
function terminals(block: string[]): { broker: string; client: string[] } {
  const two = block.indexOf('# terminal 2');
  expect(block[0]).toBe('# terminal 1');
  expect(two).toBe(2);
  return { broker: block[1]!, client: block.slice(3) };
}

/** A port nothing listens on now: the README's 9092 may be taken on a shared machine. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

/** Terminal 1: the broker line as written, on `port`; resolves once it logs that it listens. */
async function startBroker(line: string, port: number, cwd: string) {
  const child = spawn('sh', ['-c', `exec ${line} --port ${port}`], {
    cwd,
    env: { ...process.env, PATH: `${join(prefix, 'bin')}${delimiter}${process.env['PATH'] ?? ''}` },
  });
  let log = '';
  const waiting: { text: string; done: () => void }[] = [];
  const read = (chunk: Buffer) => {
    log += chunk.toString();
    for (const w of waiting.filter((w) => log.includes(w.text))) w.done();
  };
  child.stdout.on('data', read);
  child.stderr.on('data', read);
  /** Resolves once the broker's log holds `text` (read as it comes: a client run blocks this thread). */
  const logged = (text: string) =>
    new Promise<string>((done, fail) => {
      if (log.includes(text)) return done(log);
      waiting.push({ text, done: () => done(log) });
      child.on('exit', (code) =>
        fail(new Error(`klog serve exited ${code} before logging ${text}:\n${log}`)),
      );
    });
  await logged('klog serve: listening on');
  return {
    logged,
    /** Ctrl-C, and its clean exit. */
    stop: () =>
      new Promise<number | null>((done) => {
        child.on('exit', (code) => done(code));
        child.kill('SIGINT');
      }),
  };
}

/**
 * Terminal 2: a line as written, with the README's port swapped for the broker's (`klog topics` names it
 * only by its default), and `input` on stdin.
 */
function client(line: string, port: number, cwd: string, input = '') {
  const named = line.startsWith('klog topics ') ? `${line} --bootstrap-server 127.0.0.1:9092` : line;
  const run = spawnSync('sh', ['-c', named.replaceAll('127.0.0.1:9092', `127.0.0.1:${port}`)], {
    cwd,
    input,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${join(prefix, 'bin')}${delimiter}${process.env['PATH'] ?? ''}` },
    timeout: HANG_MS,
    killSignal: 'SIGKILL',
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("the README's broker section, each command as written (the port aside)", () => {
  const blocks = readmeBlocks('A broker for real Kafka clients');

  it('sets up: the build, then `klog` on PATH', () => {
    expect(blocks[0]).toEqual(['npx -y pnpm@10.34.9 build', 'npm install -g ./packages/cli']);
  });

  it('terminal 1 serves; terminal 2 creates a topic, produces (input ended), consumes, dumps the log', async () => {
    const cwd = mkdtempSync(join(scratch, 'broker-'));
    const { broker, client: lines } = terminals(blocks[1]!);
    const port = await freePort();
    const served = await startBroker(broker, port, cwd);
    try {
      const [create, produce, consume, dump] = lines;
      expect(client(create!, port, cwd).status).toBe(0);
      // Typed lines, then Ctrl-D: the end of input.
      expect(client(produce!, port, cwd, 'k1:v1\nk1:v2\n').status).toBe(0);
      const read = client(consume!, port, cwd);
      expect(read.status).toBe(0);
      expect(read.stdout).toBe('v1\nv2\n');
      const dumped = client(dump!, port, cwd);
      expect(dumped.status).toBe(0);
    } finally {
      expect(await served.stop()).toBe(0);
    }
  });

  it('idempotence seen once: the dropped answer, the resend answered with the first offsets; then twice', async () => {
    const cwd = mkdtempSync(join(scratch, 'acks-'));
    const { broker, client: lines } = terminals(blocks[2]!);
    const [produce, consume] = lines;
    let port = await freePort();
    let served = await startBroker(broker, port, cwd);
    try {
      const sent = client(produce!, port, cwd);
      expect(sent.status).toBe(0);
      expect(sent.stderr).toMatch(/timed out/);
      expect(sent.stderr).toContain('Message delivered to partition 0 (offset 0)');
      expect(client(consume!, port, cwd).stdout).toBe('0 a\n1 b\n2 c\n');
      await served.logged('fault: dropped the response to produce #1, once-0 offsets 0..2');
    } finally {
      expect(await served.stop()).toBe(0);
    }
    // "Stop the broker, start it again the same way, and send to a topic `twice` without idempotence."
    port = await freePort();
    served = await startBroker(broker, port, cwd);
    try {
      const plain = (line: string) =>
        line.replaceAll('-t once', '-t twice').replace('enable.idempotence=true', 'enable.idempotence=false');
      expect(client(plain(produce!), port, cwd).status).toBe(0);
      // The batch whose answer was dropped is on the log twice. kcat may have sent its three lines as one batch
      // or split them (a on its own, on a busy machine): then only that first part is written again.
      const read = client(plain(consume!), port, cwd).stdout.trim().split('\n');
      expect(read.slice(0, 3)).toEqual(['0 a', '1 b', '2 c']);
      expect(read.length).toBeGreaterThan(3);
      expect(read.slice(3)).toEqual(['3 a', '4 b', '5 c'].slice(0, read.length - 3));
    } finally {
      expect(await served.stop()).toBe(0);
    }
  });
});
