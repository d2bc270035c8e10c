import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

// No request to a private address on a user's behalf: a webhook URL names a host the app's owner chose,
// and the service would otherwise reach into its own network for them (cloud metadata, databases, admin ports).

const refused = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // RFC 1918
  ['100.64.0.0', 10], // carrier-grade NAT (and Alibaba's metadata at 100.100.100.200)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, the cloud metadata address 169.254.169.254
  ['172.16.0.0', 12], // RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // RFC 1918
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  refused.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local (AWS's metadata at fd00:ec2::254 among them)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed by some)
  ['ff00::', 8], // multicast
] as const) {
  refused.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address an IPv6 one carries (::ffff:a.b.c.d, ::a.b.c.d, 64:ff9b::a.b.c.d), else undefined. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const high = parseInt(hex[1], 16);
  const low = parseInt(hex[2], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** True for an address no webhook may reach: loopback, private, link-local, metadata, multicast, reserved. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return refused.check(address, 'ipv4');
  if (family !== 6) return true;
  const v4 = embeddedIpv4(address);
  if (v4) return refused.check(v4, 'ipv4');
  return refused.check(address, 'ipv6');
}

export class RefusedAddress extends Error {}

/** A URL's host without IPv6 brackets. */
export const bareHost = (hostname: string) => (hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname);

/**
 * Resolves `host` and answers the first address it may connect to, refusing the host when any address it
 * resolves to is private (a name with one public and one private answer would let the resolver choose).
 * The caller connects to the answered address itself, so a second resolution cannot change it (no rebinding).
 */
export async function resolvePublicAddress(host: string, allowPrivate: boolean): Promise<{ address: string; family: number }> {
  const bare = bareHost(host);
  if (isIP(bare)) {
    if (!allowPrivate && isPrivateAddress(bare)) throw new RefusedAddress(`${bare} is a private address`);
    return { address: bare, family: isIP(bare) };
  }
  const answers = await lookup(bare, { all: true, verbatim: true });
  if (answers.length === 0) throw new RefusedAddress(`${bare} has no address`);
  if (!allowPrivate) {
    const bad = answers.find((a) => isPrivateAddress(a.address));
    if (bad) throw new RefusedAddress(`${bare} resolves to the private address ${bad.address}`);
  }
  return answers[0];
}
