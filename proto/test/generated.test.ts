import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import {
  EventHeader,
  TournamentLifecycleEventSchema,
  TournamentStatus,
  create,
  eventTypeOf,
  fromBinary,
  timestampFromDate,
  toBinary,
} from '../src';

const protoDir = join(__dirname, '..');
const bufBin = join(protoDir, 'node_modules', '.bin', 'buf');

function buf(...args: string[]): { status: number | null; output: string } {
  const result = spawnSync(bufBin, args, { cwd: protoDir, encoding: 'utf8' });
  if (result.error) throw result.error;
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

describe('proto contracts', () => {
  it('pass buf lint', () => {
    expect(buf('lint')).toEqual({ status: 0, output: '' });
  });

  describe('committed gen/', () => {
    let outDir: string;
    beforeAll(() => {
      outDir = mkdtempSync(join(tmpdir(), 'underdog-proto-gen-'));
    });
    afterAll(() => {
      rmSync(outDir, { recursive: true, force: true });
    });

    it('is exactly what buf generate produces (run `pnpm proto:generate` after editing .proto)', () => {
      expect(buf('generate', '--output', outDir)).toEqual({ status: 0, output: '' });
      const fresh = join(outDir, 'gen');
      const committed = join(protoDir, 'gen');

      expect(filesUnder(committed)).toEqual(filesUnder(fresh));
      const stale = filesUnder(fresh).filter(
        (file) => !readFileSync(join(fresh, file)).equals(readFileSync(join(committed, file))),
      );
      expect(stale).toEqual([]);
    });
  });

  it('round-trips a tournament lifecycle event through the wire format', () => {
    const startAt = timestampFromDate(new Date('2030-01-02T03:04:05.678Z'));
    const event = create(TournamentLifecycleEventSchema, {
      tournamentId: 't-1',
      occurredAt: startAt,
      kind: {
        case: 'live',
        value: {
          tournament: {
            id: 't-1',
            title: 'Friday night',
            description: 'Least popular wins',
            status: TournamentStatus.LIVE,
            startAt,
            prize: '$5,000',
            participantCount: 42,
            roundTimeSeconds: 15,
          },
        },
      },
    });

    const decoded = fromBinary(
      TournamentLifecycleEventSchema,
      toBinary(TournamentLifecycleEventSchema, event),
    );

    expect(decoded).toEqual(event);
    expect(decoded.kind.case).toBe('live');
    expect(eventTypeOf(decoded)).toBe('underdog.events.v1.TournamentLive');
  });

  it('keeps absent optional fields absent after a round trip', () => {
    const event = create(TournamentLifecycleEventSchema, {
      tournamentId: 't-2',
      kind: { case: 'created', value: { tournament: { id: 't-2', title: 'No prize' } } },
    });

    const decoded = fromBinary(
      TournamentLifecycleEventSchema,
      toBinary(TournamentLifecycleEventSchema, event),
    );

    expect(decoded.kind.case === 'created' && decoded.kind.value.tournament?.prize).toBeUndefined();
  });

  it('refuses to name the type of an event without a kind', () => {
    const event = create(TournamentLifecycleEventSchema, { tournamentId: 't-3' });

    expect(() => eventTypeOf(event)).toThrow(/no kind/);
    expect(EventHeader).toEqual({ type: 'event-type', id: 'event-id' });
  });
});
