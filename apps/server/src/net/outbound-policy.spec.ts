import http from 'node:http';
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError, createObjectStore } from '@cumulo/storage';
import { REFUSED_HOST, startRefusedListener, type RefusedListener } from '../../test/refused-address.ts';
import {
  OutboundPolicy,
  OutboundRefusedError,
  isNonPublicAddress,
  normalizeHost,
  parseAllowList,
  type Resolver,
} from './outbound-policy.ts';

/**
 * No DNS server can be run here, so names resolve through a stand-in resolver that answers from a table (the
 * only stand-in in this file). Addresses are only classified, never connected to, except 127.0.0.2.
 */
function tableResolver(table: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve: Resolver = (hostname, callback) => {
    calls.push(hostname);
    const found = table[hostname];
    if (!found) {
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
      return;
    }
    callback(
      null,
      found.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
  return Object.assign(resolve, { calls });
}

describe('isNonPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '127.0.0.2',
    '0.0.0.0',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.2',
    '::ffff:7f00:2',
    '::ffff:169.254.169.254',
    '64:ff9b::7f00:1',
    'not an address',
  ])('refuses %s', (address) => {
    expect(isNonPublicAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'lets %s through',
    (address) => {
      expect(isNonPublicAddress(address)).toBe(false);
    },
  );
});

describe('normalizeHost', () => {
  it('turns every numeric spelling of an IPv4 address into the dotted form the connection uses', () => {
    for (const spelling of ['0x7f000002', '2130706434', '127.2', '0177.0.0.2', '127.0.0.2', '0x7F.0.0.2']) {
      expect(normalizeHost(spelling)).toBe('127.0.0.2');
    }
    expect(normalizeHost('[::ffff:127.0.0.2]')).toBe('::ffff:7f00:2');
    expect(normalizeHost('::1')).toBe('::1');
    expect(normalizeHost('MinIO.LAN')).toBe('minio.lan');
  });
});

describe('parseAllowList', () => {
  it('reads host names, addresses and CIDR ranges, ignoring blanks', () => {
    const allowed = parseAllowList(' 10.0.0.20, minio.lan,,192.168.1.0/24 , fd00::/8 ');
    expect([...allowed.hosts]).toEqual(['minio.lan']);
    expect(allowed.ranges.check('10.0.0.20')).toBe(true);
    expect(allowed.ranges.check('10.0.0.21')).toBe(false);
    expect(allowed.ranges.check('192.168.1.77')).toBe(true);
    expect(allowed.ranges.check('192.168.2.1')).toBe(false);
    expect(allowed.ranges.check('fd00::5', 'ipv6')).toBe(true);
    expect(parseAllowList('').hosts.size).toBe(0);
  });

  it.each(['http://minio.lan', '10.0.0.0/33', 'minio lan', '10.0.0.0/', '::1/129'])(
    'refuses %s with a message naming it',
    (entry) => {
      expect(() => parseAllowList(entry)).toThrow(entry);
    },
  );
});

describe('OutboundPolicy', () => {
  const resolver = tableResolver({
    'minio.lan': ['10.0.0.5'],
    'public.test': ['93.184.216.34'],
    'sneaky.test': ['93.184.216.34', '127.0.0.3'],
    'metadata.test': ['169.254.169.254'],
    'lan-box.test': ['192.168.1.9'],
  });
  const policy = new OutboundPolicy(parseAllowList('minio.lan,192.168.1.0/24,127.0.0.1'), resolver);

  it('lets public names through and refuses a name with any refused address', async () => {
    await expect(policy.checkUrl('https://public.test/hook')).resolves.toBeUndefined();
    await expect(policy.checkUrl('https://sneaky.test/hook')).rejects.toBeInstanceOf(OutboundRefusedError);
    await expect(policy.checkUrl('http://metadata.test/latest')).rejects.toBeInstanceOf(OutboundRefusedError);
  });

  it('allows what the operator lists: a name, whatever it resolves to, and addresses in a listed range', async () => {
    await expect(policy.checkUrl('http://minio.lan:9000')).resolves.toBeUndefined();
    await expect(policy.checkUrl('http://lan-box.test:9000')).resolves.toBeUndefined();
    await expect(policy.checkUrl('http://192.168.1.200:9000')).resolves.toBeUndefined();
    await expect(policy.checkUrl('http://127.0.0.1:9000')).resolves.toBeUndefined();
    expect(policy.allowsHost('minio.lan')).toBe(true);
    expect(policy.allowsHost('192.168.1.3')).toBe(true);
    // A public address is not "allowed": it needs no exception (and a webhook to it must still be https).
    expect(policy.allowsHost('public.test')).toBe(false);
  });

  it('refuses literal addresses in every spelling without asking DNS', async () => {
    const before = resolver.calls.length;
    for (const url of [
      'http://127.0.0.2:9000',
      'http://0x7f000002:9000',
      'http://2130706434/',
      'http://[::ffff:127.0.0.2]:9000',
      'http://[::1]:9000',
      'http://169.254.169.254/latest/meta-data',
      'http://[fe80::1]/',
      'http://10.0.0.20/',
    ]) {
      await expect(policy.checkUrl(url), url).rejects.toBeInstanceOf(OutboundRefusedError);
    }
    expect(resolver.calls.length).toBe(before);
  });
});

describe('OutboundPolicy agents (a real HTTP listener on 127.0.0.2)', () => {
  let listener: RefusedListener;
  beforeAll(async () => {
    listener = await startRefusedListener();
  });
  afterAll(() => listener.stop());

  const get = (agent: http.Agent, host: string) =>
    new Promise<number>((resolve, reject) => {
      const request = http.get({ host, port: listener.port, path: '/', agent }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
    });

  it('refuse a literal address and a name that now resolves to one (DNS rebinding); nothing connects', async () => {
    // The name resolved to a public address when the URL was saved; it now answers 127.0.0.2.
    const rebinding = new OutboundPolicy(
      parseAllowList('127.0.0.1'),
      tableResolver({ 'rebind.test': [REFUSED_HOST] }),
    );
    const { httpAgent } = rebinding.agents();
    await expect(get(httpAgent, REFUSED_HOST)).rejects.toBeInstanceOf(OutboundRefusedError);
    await expect(get(httpAgent, 'rebind.test')).rejects.toBeInstanceOf(OutboundRefusedError);
    expect(listener.connections()).toBe(0);
    httpAgent.destroy();
  });

  it("carry the policy into an S3 store's every connection: a stored endpoint that now lands on 127.0.0.2", async () => {
    const rebinding = new OutboundPolicy(
      parseAllowList('127.0.0.1'),
      tableResolver({ 'rebind.test': [REFUSED_HOST] }),
    );
    for (const endpoint of [
      `http://rebind.test:${listener.port}`,
      `http://${REFUSED_HOST}:${listener.port}`,
    ]) {
      const store = await createObjectStore(
        { provider: 'genericS3', accessKeyId: 'key', secretAccessKey: 'secret', endpoint },
        { maxAttempts: 1 },
        { agents: () => rebinding.agents() },
      );
      const failure = await store.verify().catch((error: unknown) => error);
      await store.close();
      expect(failure).toBeInstanceOf(StorageError);
      expect(failure).toMatchObject({ code: 'Network', message: 'The provider could not be reached' });
    }
    expect(listener.connections()).toBe(0);
  });

  it('connect where the operator allows it', async () => {
    const allowing = new OutboundPolicy(
      parseAllowList(REFUSED_HOST),
      tableResolver({ 'box.test': [REFUSED_HOST] }),
    );
    const { httpAgent } = allowing.agents();
    expect(await get(httpAgent, REFUSED_HOST)).toBe(200);
    expect(await get(httpAgent, 'box.test')).toBe(200);
    expect(listener.connections()).toBeGreaterThan(0);
    httpAgent.destroy();
  });
});
