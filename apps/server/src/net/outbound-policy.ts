import dns, { type LookupAddress, type LookupAllOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net, { BlockList } from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * Where the server may connect on a tenant's behalf (ARCHITECTURE "Outbound address policy"). A URL or host a
 * tenant supplies (an S3 service URL, a chat webhook) is refused when any of its addresses is loopback,
 * link-local (cloud metadata included), private, unique-local, shared (CGNAT), multicast or otherwise not a
 * public unicast address, unless the operator lists it in ALLOWED_PRIVATE_ENDPOINTS. The check runs when the
 * URL is saved and again on every connection (agents with a checking `lookup`), so a name that later resolves
 * elsewhere (DNS rebinding) is refused too. Operator settings such as PROVIDER_ENDPOINTS are trusted.
 */

/** The error of a refused destination; its text never reaches a tenant (callers answer one generic text). */
export class OutboundRefusedError extends Error {
  readonly code = 'EOUTBOUNDREFUSED';
  constructor(readonly host: string) {
    super(`The outbound address policy refuses ${host}`);
    this.name = 'OutboundRefusedError';
  }
}

/** Every range that is not public unicast, with why it is refused. */
const NON_PUBLIC_RANGES: Array<[address: string, prefix: number, family: 'ipv4' | 'ipv6']> = [
  ['0.0.0.0', 8, 'ipv4'], // "this network", 0.0.0.0 reaches the local host
  ['10.0.0.0', 8, 'ipv4'], // private
  ['100.64.0.0', 10, 'ipv4'], // shared address space (CGNAT)
  ['127.0.0.0', 8, 'ipv4'], // loopback
  ['169.254.0.0', 16, 'ipv4'], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12, 'ipv4'], // private
  ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
  ['192.0.2.0', 24, 'ipv4'], // documentation
  ['192.88.99.0', 24, 'ipv4'], // 6to4 relay anycast
  ['192.168.0.0', 16, 'ipv4'], // private
  ['198.18.0.0', 15, 'ipv4'], // benchmarking
  ['198.51.100.0', 24, 'ipv4'], // documentation
  ['203.0.113.0', 24, 'ipv4'], // documentation
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved, broadcast
  ['::', 128, 'ipv6'], // unspecified
  ['::1', 128, 'ipv6'], // loopback
  ['::', 96, 'ipv6'], // IPv4-compatible (deprecated), would reach the embedded IPv4 address
  ['64:ff9b::', 96, 'ipv6'], // NAT64, embeds an IPv4 address
  ['64:ff9b:1::', 48, 'ipv6'], // local-use NAT64
  ['100::', 64, 'ipv6'], // discard
  ['2001::', 23, 'ipv6'], // IETF protocol assignments (Teredo included)
  ['2001:db8::', 32, 'ipv6'], // documentation
  ['2002::', 16, 'ipv6'], // 6to4, embeds an IPv4 address
  ['fc00::', 7, 'ipv6'], // unique-local
  ['fe80::', 10, 'ipv6'], // link-local
  ['fec0::', 10, 'ipv6'], // site-local (deprecated)
  ['ff00::', 8, 'ipv6'], // multicast
];

const nonPublic = new BlockList();
for (const [address, prefix, family] of NON_PUBLIC_RANGES) nonPublic.addSubnet(address, prefix, family);

/** The address a literal names, with IPv4-mapped IPv6 (::ffff:a.b.c.d) taken as its IPv4 address. */
function canonicalAddress(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const bare = address.replace(/^\[|\]$/g, '');
  if (net.isIPv4(bare)) return { address: bare, family: 'ipv4' };
  const mapped = /^::ffff:(?:0:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(bare);
  if (mapped?.[1] && mapped[2]) {
    const high = parseInt(mapped[1], 16);
    const low = parseInt(mapped[2], 16);
    return { address: [high >> 8, high & 255, low >> 8, low & 255].join('.'), family: 'ipv4' };
  }
  const dotted = /^::ffff:(?:0:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (dotted?.[1]) return { address: dotted[1], family: 'ipv4' };
  return { address: bare.toLowerCase(), family: 'ipv6' };
}

/** True when an IP address is not public unicast (loopback, private, link-local, unique-local, …). */
export function isNonPublicAddress(address: string): boolean {
  const canonical = canonicalAddress(address);
  if (!net.isIP(canonical.address)) return true;
  return nonPublic.check(canonical.address, canonical.family);
}

/**
 * The host part of a URL or a bare host as the connection will use it: lower case, without brackets, with the
 * numeric IPv4 forms (0x7f000001, 2130706433, 127.1, 0177.0.0.1) turned into the dotted address they mean.
 */
export function normalizeHost(host: string): string {
  let hostname = host.trim();
  try {
    hostname = new URL(
      `http://${hostname.includes(':') && !hostname.startsWith('[') ? `[${hostname}]` : hostname}`,
    ).hostname;
  } catch {
    // Not a valid host: left as given, and its lookup fails.
  }
  return hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/** The operator's exceptions (ALLOWED_PRIVATE_ENDPOINTS): host names, addresses and CIDR ranges. */
interface AllowList {
  hosts: ReadonlySet<string>;
  ranges: BlockList;
}

/** Parses ALLOWED_PRIVATE_ENDPOINTS ("10.0.0.20,minio.lan,192.168.1.0/24"); throws with the first bad entry. */
export function parseAllowList(text: string): AllowList {
  const hosts = new Set<string>();
  const ranges = new BlockList();
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    if (!entry) continue;
    const cidr = /^(.+)\/(\d{1,3})$/.exec(entry);
    if (cidr?.[1] && cidr[2]) {
      const { address, family } = canonicalAddress(cidr[1]);
      const prefix = Number(cidr[2]);
      if (!net.isIP(address) || prefix > (family === 'ipv4' ? 32 : 128)) {
        throw new Error(`"${entry}" is not a CIDR range such as 10.0.0.0/8`);
      }
      ranges.addSubnet(address, prefix, family);
      continue;
    }
    const { address, family } = canonicalAddress(entry);
    if (net.isIP(address)) {
      ranges.addAddress(address, family);
      continue;
    }
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i.test(entry)) {
      throw new Error(`"${entry}" is neither a host name, an IP address nor a CIDR range`);
    }
    hosts.add(entry.toLowerCase().replace(/\.$/, ''));
  }
  return { hosts, ranges };
}

type LookupCallback = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void;
/** The resolver the policy asks (dns.lookup with all addresses); tests may pass another. */
export type Resolver = (hostname: string, callback: LookupCallback) => void;

const systemResolver: Resolver = (hostname, callback) =>
  dns.lookup(hostname, { all: true, verbatim: true } satisfies LookupAllOptions, callback);

/** Node's `lookup` option of net.connect, in the shape the agents hand it. */
type NetLookup = NonNullable<net.TcpSocketConnectOpts['lookup']>;

/** The outbound address policy with the operator's exceptions. */
export class OutboundPolicy {
  constructor(
    private readonly allowed: AllowList,
    private readonly resolve: Resolver = systemResolver,
  ) {}

  /** True when the operator lists this host in ALLOWED_PRIVATE_ENDPOINTS, by name, address or range. */
  allowsHost(host: string): boolean {
    const hostname = normalizeHost(host);
    if (this.allowed.hosts.has(hostname.replace(/\.$/, ''))) return true;
    if (net.isIP(hostname) === 0) return false;
    const canonical = canonicalAddress(hostname);
    return this.allowed.ranges.check(canonical.address, canonical.family);
  }

  #allowsAddress(address: string): boolean {
    const canonical = canonicalAddress(address);
    return !isNonPublicAddress(address) || this.allowed.ranges.check(canonical.address, canonical.family);
  }

  /** The addresses of `host` the server may connect to; rejects with OutboundRefusedError otherwise. */
  async addressesOf(host: string): Promise<LookupAddress[]> {
    const hostname = normalizeHost(host);
    const family = net.isIP(hostname);
    if (family !== 0) {
      if (!this.#allowsAddress(hostname)) throw new OutboundRefusedError(hostname);
      return [{ address: hostname, family }];
    }
    const addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
      this.resolve(hostname, (error, found) => (error ? reject(error) : resolve(found))),
    );
    if (this.allowed.hosts.has(hostname.replace(/\.$/, ''))) return addresses;
    // One refused address refuses the name: a connection may pick any of them.
    if (addresses.length === 0 || addresses.some((a) => !this.#allowsAddress(a.address))) {
      throw new OutboundRefusedError(hostname);
    }
    return addresses;
  }

  /** Checks a tenant-supplied http(s) URL; rejects with OutboundRefusedError (or the resolver's error). */
  async checkUrl(url: string): Promise<void> {
    await this.addressesOf(new URL(url).hostname);
  }

  /** A `lookup` for net.connect that resolves through the policy, so every connection is checked again. */
  readonly lookup: NetLookup = (hostname, options, callback) => {
    this.addressesOf(hostname).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = wanted ? addresses.filter((a) => a.family === wanted) : addresses;
        if (options.all) {
          (callback as unknown as LookupCallback)(null, usable);
          return;
        }
        const first = usable[0];
        if (!first)
          callback(Object.assign(new Error(`No address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };

  /**
   * The HTTP and HTTPS agents of one tenant-configured client: keep-alive pools of 50 sockets (the AWS SDK's
   * own defaults) whose every connection goes through the policy. A literal address skips `lookup` in Node, so
   * the agents check it themselves.
   */
  agents(): { httpAgent: http.Agent; httpsAgent: https.Agent } {
    const options = { keepAlive: true, maxSockets: 50 };
    return {
      httpAgent: new GuardedHttpAgent(this, options),
      httpsAgent: new GuardedHttpsAgent(this, options),
    };
  }

  /** Refuses a connection to a literal address the policy does not allow (names go through `lookup`). */
  guardConnection(host: string | null | undefined): OutboundRefusedError | null {
    const hostname = normalizeHost(host ?? 'localhost');
    if (net.isIP(hostname) === 0) return null;
    return this.#allowsAddress(hostname) ? null : new OutboundRefusedError(hostname);
  }
}

class GuardedHttpAgent extends http.Agent {
  constructor(
    private readonly policy: OutboundPolicy,
    options: http.AgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: http.ClientRequestArgs) {
    return guardedConnect(this.policy, options, (checked) => super.createConnection(checked));
  }
}

class GuardedHttpsAgent extends https.Agent {
  constructor(
    private readonly policy: OutboundPolicy,
    options: https.AgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: https.RequestOptions) {
    return guardedConnect(this.policy, options, (checked) => super.createConnection(checked));
  }
}

function guardedConnect<O extends http.ClientRequestArgs>(
  policy: OutboundPolicy,
  options: O,
  connect: (options: O) => Duplex | null | undefined,
): Duplex | null | undefined {
  const refusal = policy.guardConnection(options.host ?? options.hostname);
  if (refusal) {
    // A socket that fails before it connects: the request fails with the refusal, and nothing is sent.
    const socket = new net.Socket();
    process.nextTick(() => socket.destroy(refusal));
    return socket;
  }
  return connect({ ...options, lookup: policy.lookup });
}
