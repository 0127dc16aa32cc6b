import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createFixtureRuntime, expectOutcome } from '../../test/sandbox/support.js';
import { SandboxError } from './sandbox-error.js';
import {
  createNamespaceIsolation,
  findExecutable,
  type IsolationRequest,
  type SandboxIsolation,
} from './sandbox-isolation.js';
import { SandboxPool, type SandboxPoolOptions } from './sandbox-pool.js';

const UNSHARE_FAILURE = 'unshare: unshare failed: Operation not permitted';
const REFUSAL =
  `Refusing to start the Fixture sandbox: it needs a network namespace without interfaces and this host cannot create one (${UNSHARE_FAILURE}). ` +
  'Run toolshed as root (or with CAP_SYS_ADMIN), or enable unprivileged user namespaces ' +
  '(sysctl -w kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0; in a container, allow the unshare system call), ' +
  'so that `unshare --net` works; or pass allowNetwork: true (--sandbox-allow-network of toolshed serve, mcp and call) to run sandboxed code with network access.';

/** A host where `unshare --net` fails, as for an unprivileged user without user namespaces. */
function hostWithoutNamespaces(requests: IsolationRequest[] = []): SandboxIsolation {
  return {
    plan: async (request) => {
      requests.push(request);
      return request.isolateNetwork
        ? { ok: false, reason: UNSHARE_FAILURE }
        : { ok: true, prefix: [], network: false, description: 'no namespaces' };
    },
  };
}

const pools: SandboxPool[] = [];
function pool(options: Partial<SandboxPoolOptions>): SandboxPool {
  const created = new SandboxPool({ runtime: createFixtureRuntime(), size: 1, ...options });
  pools.push(created);
  return created;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((created) => created.close()));
});

const scratch = mkdtempSync(join(tmpdir(), 'toolshed-isolation-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('network isolation', () => {
  it('refuses to start when no network namespace can be made, saying why and how to enable one', async () => {
    const sandboxes = pool({ isolation: hostWithoutNamespaces() });
    const error = await sandboxes.start().catch((caught: unknown) => caught);
    expect(SandboxError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'NETWORK_ISOLATION_UNAVAILABLE', message: REFUSAL });
    expectOutcome(await sandboxes.run('echo hi'), { ok: false, reason: 'unavailable', message: REFUSAL });
    expect(sandboxes.stats()).toMatchObject({ idle: 0, busy: 0, starting: 0 });
  });

  it('starts without a network namespace only when the operator allows network access', async () => {
    const requests: IsolationRequest[] = [];
    const sandboxes = pool({ isolation: hostWithoutNamespaces(requests), allowNetwork: true });
    expectOutcome(await sandboxes.run('echo hi'), { ok: true, result: 'hi' });
    expect(requests[0]).toMatchObject({ isolateNetwork: false });
    expect(sandboxes.describeIsolation()).toBe('no namespaces');
  });

  it('refuses a sandbox that can see network interfaces although isolation was promised', async () => {
    const lying: SandboxIsolation = {
      plan: async () => ({ ok: true, prefix: [], network: true, description: 'none' }),
    };
    const sandboxes = pool({ isolation: lying });
    await expect(sandboxes.start()).rejects.toMatchObject({
      code: 'START_FAILED',
      message:
        /^The sandbox process sees \d+ network interface\(s\) although it should run in an empty network namespace\.$/,
    });
  });
});

describe.runIf(process.platform === 'linux' && findExecutable('unshare') !== undefined)(
  'createNamespaceIsolation on this host',
  () => {
    it('wraps sandboxes in network and pid namespaces with a data limit', async () => {
      const plan = await createNamespaceIsolation().plan({ isolateNetwork: true, dataLimitBytes: 100 * 2 ** 20 });
      expect(plan.ok, JSON.stringify(plan)).toBe(true);
      if (!plan.ok) return;
      expect(plan.network).toBe(true);
      expect(plan.prefix).toEqual(
        expect.arrayContaining(['--net', '--pid', '--fork', '--kill-child', '--data=104857600']),
      );
      expect(plan.description).toMatch(/^network and pid namespaces/);
    });

    it('also works the unprivileged way, in a user namespace', async () => {
      const plan = await createNamespaceIsolation({ root: false }).plan({ isolateNetwork: true });
      expect(plan.ok, JSON.stringify(plan)).toBe(true);
      if (plan.ok) expect(plan.prefix).toContain('--map-root-user');
    });

    it('reports the failure of unshare, for example for a user without the right to make namespaces', async () => {
      // unshare run as nobody without --map-root-user: what an unprivileged host without user namespaces does.
      const unshare = join(scratch, 'unshare-as-nobody');
      writeFileSync(
        unshare,
        `#!/bin/sh\nexec ${findExecutable('setpriv')} --reuid=65534 --regid=65534 --clear-groups ${findExecutable('unshare')} "$@"\n`,
      );
      chmodSync(unshare, 0o755);
      const isolation = createNamespaceIsolation({ unshare, root: true });
      const plan = await isolation.plan({ isolateNetwork: true });
      expect(plan).toEqual({ ok: false, reason: expect.stringMatching(/unshare failed: Operation not permitted/) });
      const sandboxes = pool({ isolation });
      await expect(sandboxes.start()).rejects.toMatchObject({
        code: 'NETWORK_ISOLATION_UNAVAILABLE',
        message: expect.stringContaining('pass allowNetwork: true'),
      });
      const allowed = await isolation.plan({ isolateNetwork: false });
      expect(allowed).toMatchObject({ ok: true, network: false });
    });

    it('reports a missing unshare command', async () => {
      const plan = await createNamespaceIsolation({ unshare: join(scratch, 'no-such-unshare') }).plan({
        isolateNetwork: true,
      });
      expect(plan).toEqual({ ok: false, reason: expect.stringMatching(/No such file or directory|ENOENT/) });
    });
  },
);
