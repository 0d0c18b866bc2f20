// MurmurHash3 x64 128-bit with Kafka Streams' seed (its state/internals/Murmur3.hash128): the
// foreign-key join sends this hash of the serialized left value with each subscription and
// compares it with the hash of the current value when the response comes back, so the two sides
// must agree bit for bit with Java's, whichever runtime wrote the subscription.

const MASK = (1n << 64n) - 1n;
const C1 = 0x87c37b91114253d5n;
const C2 = 0x4cf5ad432745937fn;
const SEED = 104729n;

const mul = (a: bigint, b: bigint): bigint => (a * b) & MASK;
const add = (a: bigint, b: bigint): bigint => (a + b) & MASK;
const rotl = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (64n - r))) & MASK;

function fmix64(h: bigint): bigint {
  let k = h ^ (h >> 33n);
  k = mul(k, 0xff51afd7ed558ccdn);
  k ^= k >> 33n;
  k = mul(k, 0xc4ceb9fe1a85ec53n);
  return k ^ (k >> 33n);
}

const mixK1 = (k: bigint): bigint => mul(rotl(mul(k, C1), 31n), C2);
const mixK2 = (k: bigint): bigint => mul(rotl(mul(k, C2), 33n), C1);

/** Little-endian 64-bit word of `length` (1..8) bytes from `offset`, as the tail is read. */
function wordLE(data: Buffer, offset: number, length: number): bigint {
  let k = 0n;
  for (let i = length - 1; i >= 0; i--) k = (k << 8n) | BigInt(data[offset + i]!);
  return k;
}

/** The two 64-bit halves, as Java's `long[]{h1, h2}` written big-endian one after the other (16 bytes). */
export function murmur3Hash128(bytes: Uint8Array): Buffer {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = data.length;
  let h1 = SEED;
  let h2 = SEED;
  const blocks = length >> 4;
  for (let i = 0; i < blocks; i++) {
    const at = i << 4;
    h1 ^= mixK1(data.readBigUInt64LE(at));
    h1 = add(mul(add(rotl(h1, 27n), h2), 5n), 0x52dce729n);
    h2 ^= mixK2(data.readBigUInt64LE(at + 8));
    h2 = add(mul(add(rotl(h2, 31n), h1), 5n), 0x38495ab5n);
  }
  const tail = blocks << 4;
  const rest = length - tail;
  if (rest > 8) h2 ^= mixK2(wordLE(data, tail + 8, rest - 8));
  if (rest > 0) h1 ^= mixK1(wordLE(data, tail, Math.min(rest, 8)));
  h1 ^= BigInt(length);
  h2 ^= BigInt(length);
  h1 = add(h1, h2);
  h2 = add(h2, h1);
  h1 = fmix64(h1);
  h2 = fmix64(h2);
  h1 = add(h1, h2);
  h2 = add(h2, h1);
  const out = Buffer.allocUnsafe(16);
  out.writeBigUInt64BE(h1, 0);
  out.writeBigUInt64BE(h2, 8);
  return out;
}
