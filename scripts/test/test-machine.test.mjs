// scripts/test-machine.mjs: what a test does when its tool is missing, and what `pnpm test`'s first step
// says on a machine without the Debian packages.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { missingMessage, optedOut, requireTool, TOOLS } from '../test-machine.mjs';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), '..', 'test-machine.mjs');

test('a tool that is there: its tests run', () => {
  assert.equal(requireTool('sarama', true, undefined, {}), false);
});

test('a tool that is missing: the test file fails, naming the packages and the opt-out', () => {
  assert.throws(
    () => requireTool('sarama', false, '`go version` failed', {}),
    (e) =>
      e instanceof Error &&
      e.message.includes('`go version` failed') &&
      e.message.includes(
        'sudo apt-get install -y golang-go golang-github-shopify-sarama-dev gcc libc6-dev',
      ) &&
      e.message.includes('KLOG_SKIP=sarama'),
  );
});

test('opted out by name: skipped, and only that one', () => {
  const env = { KLOG_SKIP: 'chromium, sarama' };
  assert.deepEqual([...optedOut(env)], ['chromium', 'sarama']);
  assert.equal(requireTool('sarama', false, undefined, env), true);
  assert.throws(() => requireTool('kafka-python', false, undefined, env), /KLOG_SKIP=kafka-python/);
});

test('kcat and confluent-kafka cannot be opted out of', () => {
  for (const name of ['kcat', 'confluent-kafka']) {
    assert.equal(TOOLS.find((t) => t.name === name)?.required, true);
    assert.throws(() => requireTool(name, false, undefined, { KLOG_SKIP: name }), /apt-get install/);
    assert.doesNotMatch(missingMessage(name), /KLOG_SKIP/);
  }
});

test('the command: an unknown or required name in KLOG_SKIP is refused (exit 2)', () => {
  for (const name of ['nonsense', 'kcat']) {
    const r = spawnSync(process.execPath, [SCRIPT], {
      env: { ...process.env, KLOG_SKIP: name },
      encoding: 'utf8',
    });
    assert.equal(r.status, 2, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(`KLOG_SKIP names ${name}, which is not one of the tools that can be skipped`),
    );
  }
});

test('the command on a machine without dpkg: stops at once and says what the tests drive (exit 1)', () => {
  // A PATH that has node and nothing else.
  const bin = mkdtempSync(join(tmpdir(), 'klog-no-dpkg-'));
  symlinkSync(process.execPath, join(bin, 'node'));
  const r = spawnSync(join(bin, 'node'), [SCRIPT], { env: { PATH: bin }, encoding: 'utf8' });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /not a Debian machine \(no dpkg\)/);
  assert.match(r.stderr, /\[Debian: kcat\]/);
  assert.match(r.stderr, /KLOG_SKIP=chromium,script,kafka-python,sarama/);
});
