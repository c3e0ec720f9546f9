// Bit-for-bit port of bench/workloads/hash.ts and the record hashes of bench/workloads/checksum.ts.
package dev.weir.bench;

/** Integer hashing shared by the generator and the checksums; int arithmetic wraps exactly like Math.imul. */
public final class Hashing {
  private Hashing() {}

  public static final int RECORD_HASH_SEED = 0x2f1b3c4d;

  public static int fmix32(int h) {
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    return h;
  }

  /** Draw number {@code salt} for event {@code index} (index below 2^31). */
  public static int draw(int seed, int index, int salt) {
    return fmix32(seed ^ (index * 0x9e3779b1) ^ (salt * 0x85ebca6b));
  }

  /** Uniform in [0, bound): unsigned remainder, as TypeScript's (h >>> 0) % bound. */
  public static int below(int h, int bound) {
    return Integer.remainderUnsigned(h, bound);
  }

  public static int mixInt(int h, int k) {
    k *= 0xcc9e2d51;
    k = Integer.rotateLeft(k, 15);
    k *= 0x1b873593;
    h ^= k;
    h = Integer.rotateLeft(h, 13);
    return h * 5 + 0xe6546b64;
  }

  /** A non-negative long as two ints, low word first. */
  public static int mixLong(int h, long v) {
    return mixInt(mixInt(h, (int) v), (int) (v >>> 32));
  }

  public static int finish(int h, int words) {
    return fmix32(h ^ (words << 2));
  }

  public static int stateless(int key, int value) {
    return finish(mixInt(mixInt(RECORD_HASH_SEED, key), value), 2);
  }

  public static int rollingCount(int key, int count) {
    return finish(mixInt(mixInt(RECORD_HASH_SEED, key), count), 2);
  }

  public static int windowAggregate(int key, long windowStart, int count, int sum) {
    return finish(mixInt(mixInt(mixLong(mixInt(RECORD_HASH_SEED, key), windowStart), count), sum), 5);
  }

  public static int hotItem(long windowStart, int auction, int count) {
    return finish(mixInt(mixInt(mixLong(RECORD_HASH_SEED, windowStart), auction), count), 4);
  }

  public static int session(int bidder, long start, long end, int count) {
    return finish(mixInt(mixLong(mixLong(mixInt(RECORD_HASH_SEED, bidder), start), end), count), 6);
  }

  public static int cepMatch(int key, int probeId, int largeId, int drainId) {
    return finish(mixInt(mixInt(mixInt(mixInt(RECORD_HASH_SEED, key), probeId), largeId), drainId), 4);
  }

  public static int batch(int uid, int count, long firstTs) {
    return finish(mixLong(mixInt(mixInt(RECORD_HASH_SEED, uid), count), firstTs), 4);
  }

  public static int highestBid(long windowEnd, int auction, int bidder, int price) {
    return finish(mixInt(mixInt(mixInt(mixLong(RECORD_HASH_SEED, windowEnd), auction), bidder), price), 5);
  }

  /** The name is mixed one UTF-16 code unit at a time, as TypeScript's charCodeAt. */
  public static int newPerson(int person, String name, long windowStart) {
    int h = mixInt(RECORD_HASH_SEED, person);
    for (int k = 0; k < name.length(); k++) h = mixInt(h, name.charAt(k));
    return finish(mixLong(h, windowStart), 3 + name.length());
  }
}
