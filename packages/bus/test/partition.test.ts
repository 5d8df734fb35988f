import { partitionOf } from '../src';

/** The Java client's murmur2 of each key (Kafka's own `UtilsTest.testMurmur2`). */
const javaMurmur2: Record<string, number> = {
  '21': -973932308,
  foobar: -790332482,
  'a-little-bit-long-string': -985981536,
  'a-little-bit-longer-string': -1486304829,
  lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8: -58897971,
  abc: 479470107,
};

describe('partitionOf', () => {
  it('gives the partition the Java clients give: the positive murmur2 modulo the partitions', () => {
    for (const partitions of [1, 4, 12, 1_000]) {
      for (const [key, hash] of Object.entries(javaMurmur2)) {
        expect(partitionOf(key, partitions)).toBe((hash & 0x7fffffff) % partitions);
      }
    }
  });
});
