// MurmurHash3 x64 128-bit with Kafka Streams' seed (its state/internals/Murmur3.hash128): the
// foreign-key join sends this hash of the serialized left value with each subscription and
// compares it with the hash of the current value when the response comes back, so the two sides
// must agree bit for bit with Java's, whichever runtime wrote the subscription. The 64-bit words
// are kept as two unsigned 32-bit halves (hi, lo): BigInt arithmetic was five times slower.

const TWO_32 = 4294967296;
const SEED = 104729;

// The result of the last 64-bit operation (module scratch registers: no allocation per step).
let rh = 0;
let rl = 0;

/** The low 64 bits of a * b. */
function mul(ah: number, al: number, bh: number, bl: number): void {
  const a0 = al & 0xffff;
  const a1 = al >>> 16;
  const b0 = bl & 0xffff;
  const b1 = bl >>> 16;
  const middle = a0 * b1 + a1 * b0; // < 2^33, exact
  const low = a0 * b0 + (middle % 65536) * 65536; // < 2^33, exact
  const carry = low >= TWO_32 ? 1 : 0;
  const high = a1 * b1 + Math.floor(middle / 65536) + carry; // the high half of al * bl
  rh = (high + Math.imul(al, bh) + Math.imul(ah, bl)) >>> 0;
  rl = low >>> 0;
}

function rotl(h: number, l: number, r: number): void {
  if (r >= 32) {
    const t = h;
    h = l;
    l = t;
    r -= 32;
  }
  if (r === 0) {
    rh = h;
    rl = l;
    return;
  }
  rh = ((h << r) | (l >>> (32 - r))) >>> 0;
  rl = ((l << r) | (h >>> (32 - r))) >>> 0;
}

function add(ah: number, al: number, bh: number, bl: number): void {
  const low = al + bl;
  rl = low >>> 0;
  rh = (ah + bh + (low >= TWO_32 ? 1 : 0)) >>> 0;
}

/** k * C1, rotated left 31, * C2 (the mixing of the first word of a block). */
function mixK1(h: number, l: number): void {
  mul(h, l, 0x87c37b91, 0x114253d5);
  rotl(rh, rl, 31);
  mul(rh, rl, 0x4cf5ad43, 0x2745937f);
}

/** k * C2, rotated left 33, * C1 (the second word's). */
function mixK2(h: number, l: number): void {
  mul(h, l, 0x4cf5ad43, 0x2745937f);
  rotl(rh, rl, 33);
  mul(rh, rl, 0x87c37b91, 0x114253d5);
}

function fmix64(h: number, l: number): void {
  l = (l ^ (h >>> 1)) >>> 0;
  mul(h, l, 0xff51afd7, 0xed558ccd);
  h = rh;
  l = (rl ^ (rh >>> 1)) >>> 0;
  mul(h, l, 0xc4ceb9fe, 0x1a85ec53);
  rl = (rl ^ (rh >>> 1)) >>> 0;
}

/** Little-endian `length` (1..8) bytes from `offset` as a 64-bit word, into (rh, rl). */
function tailWord(data: Buffer, offset: number, length: number): void {
  let h = 0;
  let l = 0;
  for (let i = length - 1; i >= 0; i--) {
    const byte = data[offset + i]!;
    if (i >= 4) h = ((h << 8) | byte) >>> 0;
    else l = ((l << 8) | byte) >>> 0;
  }
  rh = h;
  rl = l;
}

/** The two 64-bit halves, as Java's `long[]{h1, h2}` written big-endian one after the other (16 bytes). */
export function murmur3Hash128(bytes: Uint8Array): Buffer {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = data.length;
  let h1h = 0;
  let h1l = SEED;
  let h2h = 0;
  let h2l = SEED;
  const blocks = length >> 4;
  for (let i = 0; i < blocks; i++) {
    const at = i << 4;
    mixK1(data.readUInt32LE(at + 4), data.readUInt32LE(at));
    rotl((h1h ^ rh) >>> 0, (h1l ^ rl) >>> 0, 27);
    add(rh, rl, h2h, h2l);
    mul(rh, rl, 0, 5);
    add(rh, rl, 0, 0x52dce729);
    h1h = rh;
    h1l = rl;
    mixK2(data.readUInt32LE(at + 12), data.readUInt32LE(at + 8));
    rotl((h2h ^ rh) >>> 0, (h2l ^ rl) >>> 0, 31);
    add(rh, rl, h1h, h1l);
    mul(rh, rl, 0, 5);
    add(rh, rl, 0, 0x38495ab5);
    h2h = rh;
    h2l = rl;
  }
  const tail = blocks << 4;
  const rest = length - tail;
  if (rest > 8) {
    tailWord(data, tail + 8, rest - 8);
    mixK2(rh, rl);
    h2h = (h2h ^ rh) >>> 0;
    h2l = (h2l ^ rl) >>> 0;
  }
  if (rest > 0) {
    tailWord(data, tail, Math.min(rest, 8));
    mixK1(rh, rl);
    h1h = (h1h ^ rh) >>> 0;
    h1l = (h1l ^ rl) >>> 0;
  }
  h1l = (h1l ^ length) >>> 0;
  h2l = (h2l ^ length) >>> 0;
  add(h1h, h1l, h2h, h2l);
  h1h = rh;
  h1l = rl;
  add(h2h, h2l, h1h, h1l);
  h2h = rh;
  h2l = rl;
  fmix64(h1h, h1l);
  h1h = rh;
  h1l = rl;
  fmix64(h2h, h2l);
  h2h = rh;
  h2l = rl;
  add(h1h, h1l, h2h, h2l);
  h1h = rh;
  h1l = rl;
  add(h2h, h2l, h1h, h1l);
  const out = Buffer.allocUnsafe(16);
  out.writeUInt32BE(h1h, 0);
  out.writeUInt32BE(h1l, 4);
  out.writeUInt32BE(rh, 8);
  out.writeUInt32BE(rl, 12);
  return out;
}
