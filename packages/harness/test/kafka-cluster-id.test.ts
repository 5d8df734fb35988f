// The KRaft cluster id the harness formats Kafka's storage with: the storage tool reads an id
// starting with `-` as an option and refuses to format, which once failed a benchmark's start.
import { clusterId } from '../src/servers/kafka';

describe('harness: the Kafka cluster id', () => {
  it('never starts with a dash, in 10,000 draws (1 in 64 random ids would)', () => {
    const ids = Array.from({ length: 10_000 }, () => clusterId());
    expect(ids.filter((id) => id.startsWith('-'))).toEqual([]);
  });

  it('is 16 bytes in unpadded base64url, as Kafka expects', () => {
    const id = clusterId();
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(id, 'base64url')).toHaveLength(16);
  });
});
