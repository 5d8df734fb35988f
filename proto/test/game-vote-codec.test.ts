import { ScalarType, createRegistry, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import fc from 'fast-check';
import {
  GameVoteEventSchema,
  TimestampSchema,
  VoteCastSchema,
  create,
  decodeGameVoteEvent,
  encodeGameVoteEvent,
  equals,
  fromBinary,
  timestampFromDate,
  toBinary,
  type GameVoteInput,
} from '../src';

/** What protobuf-es writes for a vote, the way produceVote wrote it before the codec. */
function reference(vote: GameVoteInput): Uint8Array {
  const { tournamentId, castAt, ...cast } = vote;
  const event = create(GameVoteEventSchema, {
    tournamentId,
    kind: { case: 'voteCast', value: { ...cast, castAt: timestampFromDate(new Date(castAt)) } },
  });
  return toBinary(GameVoteEventSchema, event);
}

const registry = createRegistry(GameVoteEventSchema);

const outcome = <T>(run: () => T): { value: T } | { error: string } => {
  try {
    return { value: run() };
  } catch (error) {
    return { error: String(error) };
  }
};

/** The codec decodes `bytes` to what fromBinary does, unknown fields too, or throws its error. */
function expectSameDecoding(bytes: Uint8Array): 'decodes' | 'throws' {
  const expected = outcome(() => fromBinary(GameVoteEventSchema, bytes));
  const actual = outcome(() => decodeGameVoteEvent(bytes));
  if ('error' in expected) {
    expect(actual).toEqual(expected);
    return 'throws';
  }
  expect(actual).toStrictEqual(expected);
  if ('value' in actual) {
    expect(equals(GameVoteEventSchema, actual.value, expected.value)).toBe(true);
    const withUnknown = { registry, unknown: true };
    expect(equals(GameVoteEventSchema, actual.value, expected.value, withUnknown)).toBe(true);
  }
  return 'decodes';
}

const concat = (chunks: Uint8Array[]) => Uint8Array.from(chunks.flatMap((chunk) => [...chunk]));
const written = (write: (writer: BinaryWriter) => unknown) => {
  const writer = new BinaryWriter();
  write(writer);
  return writer.finish();
};

const text = fc.oneof(
  fc.constant(''),
  fc.uuid(),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  // Past the writer's ASCII fast path (32) and a one-byte length prefix (127).
  fc.string({ unit: 'binary-ascii', minLength: 30, maxLength: 300 }),
  // Lone surrogates: the writer's UTF-8 encoder makes them U+FFFD, both ways alike.
  fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)) }),
);
const roundNumber = fc.oneof(
  fc.constantFrom(0, 1, 17, 127, 128, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1),
  fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  fc.bigInt({ min: 0n, max: 2n ** 32n - 1n }).map(Number),
);
const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
const MAX_DATE_MS = 8.64e15;
const castAt = fc.oneof(
  // Now, give or take thirty years, with and without a fraction of a millisecond.
  fc.integer({ min: 0, max: 2 ** 30 }).map((n) => Date.UTC(2026, 0) + (n - 2 ** 29) * 1000),
  fc.double({ min: 0, max: 4e12, noNaN: true }),
  fc.double({ min: -MAX_DATE_MS, max: MAX_DATE_MS, noNaN: true }),
  fc.bigInt({ min: -8_640_000_000_000_000n, max: 8_640_000_000_000_000n }).map(Number),
  fc.integer({ min: -3000, max: 3000 }),
  fc.constantFrom(0, -0, 0.5, -0.5, -1, -999, -1000, -1001, 999.999, 1.5, MAX_DATE_MS),
  // Where the seconds leave int32 (written as int64 then): 2^31 s either side.
  fc
    .constantFrom(-1, 0, 1, 999, 1000)
    .chain((d) =>
      fc.constantFrom(2 ** 31 * 1000 - d, -(2 ** 31) * 1000 - d, 2 ** 32 * 1000 + d, -MAX_DATE_MS),
    ),
);
const vote: fc.Arbitrary<GameVoteInput> = fc.record({
  tournamentId: text,
  voteId: text,
  gameId: text,
  userId: text,
  username: text,
  roundNumber,
  imageId: text,
  castAt,
  deviceId: text,
  fairPlayDeviceId: text,
  fairPlayAddressPrefix: text,
  fairPlayUserAgent: text,
});

describe('encodeGameVoteEvent', () => {
  it('writes the very bytes protobuf-es writes, which both decoders read back alike', () => {
    fc.assert(
      fc.property(vote, (input) => {
        const bytes = encodeGameVoteEvent(input);
        expect(bytes).toEqual(reference(input));
        expect(expectSameDecoding(bytes)).toBe('decodes');
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    ['castAt NaN', { castAt: NaN }],
    ['castAt Infinity', { castAt: Infinity }],
    ['castAt past what a Date holds', { castAt: MAX_DATE_MS + 1 }],
    ['castAt before what a Date holds', { castAt: -MAX_DATE_MS - 1000 }],
    ['a negative round', { roundNumber: -1 }],
    ['a fractional round', { roundNumber: 1.5 }],
    ['a round past uint32', { roundNumber: 2 ** 32 }],
    ['a round NaN', { roundNumber: NaN }],
  ])('throws where protobuf-es throws: %s', (_, change) => {
    const input = { ...fc.sample(vote, { numRuns: 1, seed: 7 })[0]!, ...change };
    expect(() => reference(input)).toThrow();
    expect(() => encodeGameVoteEvent(input)).toThrow();
    // The shared writer starts the next vote afresh.
    const next = fc.sample(vote, { numRuns: 1, seed: 8 })[0]!;
    expect(encodeGameVoteEvent(next)).toEqual(reference(next));
  });
});

/** An unknown field of any wire type (groups nest), with a number above `known`. */
const unknownField = (known: number) =>
  fc.letrec<{ field: Uint8Array; inner: Uint8Array }>((tie) => {
    const no = (min: number) => fc.integer({ min, max: 2 ** 29 - 1 });
    const record = (min: number) =>
      fc.oneof(
        { depthSize: 'small' },
        fc
          .tuple(no(min), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }))
          .map(([n, v]) => written((w) => w.tag(n, 0).uint64(v))),
        fc.tuple(no(min), int64).map(([n, v]) => written((w) => w.tag(n, 1).sfixed64(v))),
        fc.tuple(no(min), fc.uint8Array()).map(([n, v]) => written((w) => w.tag(n, 2).bytes(v))),
        fc.tuple(no(min), fc.integer()).map(([n, v]) => written((w) => w.tag(n, 5).sfixed32(v))),
        fc
          .tuple(no(min), fc.array(tie('inner'), { maxLength: 3 }))
          .map(([n, inner]) =>
            concat([written((w) => w.tag(n, 3)), ...inner, written((w) => w.tag(n, 4))]),
          ),
      );
    // Inside a group, any number goes: the group is skipped whole.
    return { field: record(known + 1), inner: record(1) };
  }).field;

const lengthDelimited = (fieldNo: number, chunks: Uint8Array[]) =>
  written((w) => w.tag(fieldNo, WireType.LengthDelimited).bytes(concat(chunks)));

// A message as concatenated pieces — fields in any order, repeated, unknown ones between — which
// protobuf reads as one message (the pieces merge).
const timestampPiece = fc.oneof(
  fc
    .record({ seconds: int64, nanos: fc.integer() }, { requiredKeys: [] })
    .map((init) => toBinary(TimestampSchema, create(TimestampSchema, init))),
  unknownField(2),
);
const castPiece = fc.oneof(
  vote.map(({ tournamentId: _, castAt, ...cast }) =>
    toBinary(
      VoteCastSchema,
      create(VoteCastSchema, { ...cast, castAt: timestampFromDate(new Date(castAt)) }),
    ),
  ),
  fc
    .record(
      { voteId: text, username: text, roundNumber, fairPlayUserAgent: text },
      { requiredKeys: [] },
    )
    .map((init) => toBinary(VoteCastSchema, create(VoteCastSchema, init))),
  fc.array(timestampPiece, { maxLength: 4 }).map((pieces) => lengthDelimited(7, pieces)),
  unknownField(11),
);
const eventPiece = fc.oneof(
  text.map((tournamentId) =>
    toBinary(GameVoteEventSchema, create(GameVoteEventSchema, { tournamentId })),
  ),
  fc.array(castPiece, { maxLength: 6 }).map((pieces) => lengthDelimited(2, pieces)),
  unknownField(2),
);
const event = fc.array(eventPiece, { maxLength: 6 }).map(concat);

const hex = (text: string) => Uint8Array.from(Buffer.from(text.replace(/ /g, ''), 'hex'));

describe('decodeGameVoteEvent', () => {
  it('reads what fromBinary reads: fields in any order, repeated, merged, unknown ones kept', () => {
    fc.assert(
      fc.property(event, (bytes) => {
        expect(expectSameDecoding(bytes)).toBe('decodes');
      }),
      { numRuns: 2000 },
    );
  });

  it('throws where fromBinary throws, with its error, and reads alike where it does not', () => {
    const damaged = fc.oneof(
      fc.uint8Array({ maxLength: 64 }),
      fc
        .tuple(event, fc.nat())
        .filter(([bytes]) => bytes.length > 0)
        .map(([bytes, at]) => bytes.subarray(0, at % bytes.length)),
      fc
        .tuple(event, fc.nat(), fc.integer({ min: 0, max: 255 }))
        .filter(([bytes]) => bytes.length > 0)
        .map(([bytes, at, byte]) => bytes.map((b, i) => (i === at % bytes.length ? byte : b))),
      fc
        .tuple(event, fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 4 }))
        .map(([bytes, at, extra]) => {
          const cut = bytes.length === 0 ? 0 : at % bytes.length;
          return concat([bytes.subarray(0, cut), extra, bytes.subarray(cut)]);
        }),
    );
    const seen = { decodes: 0, throws: 0 };
    fc.assert(
      fc.property(damaged, (bytes) => {
        seen[expectSameDecoding(bytes)]++;
      }),
      { numRuns: 4000 },
    );
    // Both paths were taken often, so neither outcome was compared only a few times.
    expect(seen.throws).toBeGreaterThan(400);
    expect(seen.decodes).toBeGreaterThan(400);
  });

  // Each case says what fromBinary does with it, so a change of protobuf-es shows here too.
  it.each([
    ['no bytes: an event without a kind', '', 'decodes'],
    ['a kind but an empty vote (no cast time)', '1200', 'decodes'],
    ['a cast time of zero seconds and nanos', '1202 3a00', 'decodes'],
    ['a truncated tag', '80', 'throws'],
    ['a truncated varint (the round)', '1202 2880', 'throws'],
    ['a truncated length-delimited string', '0a05 61', 'throws'],
    ['a vote longer than the bytes', '1210 0a0161', 'throws'],
    ['a cast time longer than the vote', '1204 3a03 0801 1005', 'decodes'],
    ['a varint of eleven bytes (the round)', '120c 28 ffffffffffffffffffff01', 'throws'],
    ['invalid UTF-8 (the tournament id)', '0a01 ff', 'throws'],
    ['invalid UTF-8 (the user agent)', '1203 5a01 c3', 'throws'],
    ['field number 0', '0001', 'throws'],
    ['wire type 6', '0e', 'throws'],
    ['wire type 7', '0f', 'throws'],
    ['a tag of six bytes', '88 80 80 80 80 00', 'throws'],
    ['an unknown field with wire type end-group', '1c', 'throws'],
    ['an unknown group closed by another field number', '1b 24', 'throws'],
    ['an unknown group never closed', '1b 0801', 'throws'],
    ['an unknown group holding a group', '1b 0b 0801 0c 1c 0a0161', 'decodes'],
    // protobuf-es reads a known field by its type whatever the wire type says.
    ['the tournament id with wire type varint', '0801 61', 'decodes'],
    ['the vote with wire type start-group', '1303 0801 61', 'decodes'],
    ['the round with wire type fixed32', '1202 2d07', 'decodes'],
    ['a wire type the reader cannot follow inside the vote', '1203 2a01 05', 'throws'],
  ])('%s: %s', (_, bytes, expected) => {
    expect(expectSameDecoding(hex(bytes))).toBe(expected);
  });
});

/** What the codec reads and writes, field by field; test/generated.test.ts keeps gen/ fresh. */
const handled: Record<string, string[]> = {
  'underdog.events.v1.GameVoteEvent': [
    '1 tournament_id string implicit',
    '2 vote_cast message underdog.events.v1.VoteCast explicit oneof kind',
  ],
  'underdog.events.v1.VoteCast': [
    '1 vote_id string implicit',
    '2 game_id string implicit',
    '3 user_id string implicit',
    '4 username string implicit',
    '5 round_number uint32 implicit',
    '6 image_id string implicit',
    '7 cast_at message google.protobuf.Timestamp explicit',
    '8 device_id string implicit',
    '9 fair_play_device_id string implicit',
    '10 fair_play_address_prefix string implicit',
    '11 fair_play_user_agent string implicit',
  ],
  'google.protobuf.Timestamp': ['1 seconds int64 implicit', '2 nanos int32 implicit'],
};

function fieldOf(field: DescField): string {
  const type =
    field.fieldKind === 'scalar'
      ? ScalarType[field.scalar].toLowerCase()
      : field.fieldKind === 'message'
        ? `message ${field.message.typeName}${field.delimitedEncoding ? ' delimited' : ''}`
        : field.fieldKind;
  const presence = field.presence === 2 ? 'implicit' : 'explicit';
  const oneof = field.oneof ? ` oneof ${field.oneof.name}` : '';
  return `${field.number} ${field.name} ${type} ${presence}${oneof}`;
}

describe('the codec and game_votes.proto', () => {
  it.each([GameVoteEventSchema, VoteCastSchema, TimestampSchema] as DescMessage[])(
    'agree on every field of $typeName (a new field needs the codec and this list first)',
    (schema) => {
      expect(schema.fields.map(fieldOf)).toEqual(handled[schema.typeName]);
    },
  );
});
