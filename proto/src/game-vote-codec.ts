import type { UnknownField } from '@bufbuild/protobuf';
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import type { GameVoteEvent, VoteCast } from '../gen/underdog/events/v1/game_votes_pb';

/*
 * A hand-written codec for `GameVoteEvent`, the one message every vote costs three times: the
 * gateway encodes it, the game engine and the tournament's fair-play consumer decode it. The
 * reflective `toBinary`/`fromBinary` of protobuf-es serve every message type through the same
 * functions, which go megamorphic in a process that holds them all (11–18 µs per vote and
 * operation in a 10,000-player round, against 2–4 µs alone). These functions know the one layout
 * and use the library's own wire primitives, so they write exactly the bytes `toBinary` writes
 * and read exactly what `fromBinary` reads, errors included. test/game-vote-codec.test.ts holds
 * them to both, and fails the moment game_votes.proto gains a field they do not know.
 */

/** What the gateway has of an admitted vote: its tournament, a VoteCast's fields, `castAt` in ms. */
export type GameVoteInput = Omit<VoteCast, '$typeName' | '$unknown' | 'castAt'> & {
  readonly tournamentId: string;
  /** Epoch milliseconds, stamped as `timestampFromDate(new Date(castAt))` would stamp them. */
  readonly castAt: number;
};

// Tags, `field number << 3 | wire type`, as `BinaryWriter.tag` computes them.
const LEN = WireType.LengthDelimited;
const tagOf = (fieldNo: number, wireType: WireType) => ((fieldNo << 3) | wireType) >>> 0;
const EVENT_TOURNAMENT_ID = tagOf(1, LEN);
const EVENT_VOTE_CAST = tagOf(2, LEN);
const CAST_VOTE_ID = tagOf(1, LEN);
const CAST_GAME_ID = tagOf(2, LEN);
const CAST_USER_ID = tagOf(3, LEN);
const CAST_USERNAME = tagOf(4, LEN);
const CAST_ROUND_NUMBER = tagOf(5, WireType.Varint);
const CAST_IMAGE_ID = tagOf(6, LEN);
const CAST_CAST_AT = tagOf(7, LEN);
const CAST_DEVICE_ID = tagOf(8, LEN);
const CAST_FAIR_PLAY_DEVICE_ID = tagOf(9, LEN);
const CAST_FAIR_PLAY_ADDRESS_PREFIX = tagOf(10, LEN);
const CAST_FAIR_PLAY_USER_AGENT = tagOf(11, LEN);
const TIMESTAMP_SECONDS = tagOf(1, WireType.Varint);
const TIMESTAMP_NANOS = tagOf(2, WireType.Varint);

/** The largest distance from the epoch a Date holds (ECMAScript's TimeClip), in ms. */
const MAX_DATE_MS = 8.64e15;

/**
 * One writer for every vote: encoding is synchronous, and `finish()` copies the bytes out and
 * rewinds it, so its buffer, grown once to a vote's size, is never allocated again.
 */
const writer = new BinaryWriter();

/** Proto3: an empty string is not written. Null and undefined neither, as `create` omits them. */
function writeString(tag: number, value: string): void {
  if (value) writer.uint32(tag).string(value);
}

/**
 * The bytes of `toBinary(GameVoteEventSchema, create(GameVoteEventSchema, { tournamentId, kind:
 * { case: 'voteCast', value: { ...cast, castAt: timestampFromDate(new Date(castAt)) } } }))`:
 * the fields in number order, empty strings and a zero round left out, the cast time always
 * written (a Timestamp message, its zero seconds and nanos left out). Throws where those would:
 * a `castAt` no Date can hold, a round that is no uint32.
 */
export function encodeGameVoteEvent(vote: GameVoteInput): Uint8Array {
  const { castAt, roundNumber } = vote;
  // `new Date(castAt)` keeps whole milliseconds (truncated, -0 made 0) and refuses the rest.
  if (!(Math.abs(castAt) <= MAX_DATE_MS)) {
    throw new RangeError(`cannot encode GameVoteEvent: castAt ${castAt} is no valid date`);
  }
  const ms = Math.trunc(castAt) + 0;
  // timestampFromMs, computed the same way so that the bytes are the same.
  const seconds = Math.floor(ms / 1000);
  const nanos = (ms - seconds * 1000) * 1_000_000;
  try {
    writeString(EVENT_TOURNAMENT_ID, vote.tournamentId);
    writer.uint32(EVENT_VOTE_CAST).fork();
    writeString(CAST_VOTE_ID, vote.voteId);
    writeString(CAST_GAME_ID, vote.gameId);
    writeString(CAST_USER_ID, vote.userId);
    writeString(CAST_USERNAME, vote.username);
    if (roundNumber != null && roundNumber !== 0) {
      writer.uint32(CAST_ROUND_NUMBER).uint32(roundNumber);
    }
    writeString(CAST_IMAGE_ID, vote.imageId);
    writer.uint32(CAST_CAST_AT).fork();
    if (seconds !== 0) {
      writer.uint32(TIMESTAMP_SECONDS);
      // An int32 is sign-extended to 64 bits on the wire, so it writes the int64's very bytes
      // without the BigInt that `int64` makes of a number.
      if ((seconds | 0) === seconds) writer.int32(seconds);
      else writer.int64(seconds);
    }
    if (nanos !== 0) writer.uint32(TIMESTAMP_NANOS).int32(nanos);
    writer.join();
    writeString(CAST_DEVICE_ID, vote.deviceId);
    writeString(CAST_FAIR_PLAY_DEVICE_ID, vote.fairPlayDeviceId);
    writeString(CAST_FAIR_PLAY_ADDRESS_PREFIX, vote.fairPlayAddressPrefix);
    writeString(CAST_FAIR_PLAY_USER_AGENT, vote.fairPlayUserAgent);
    writer.join();
    return writer.finish();
  } catch (error) {
    // Rewinds the shared writer, so that the next vote does not start inside this one.
    writer.finish();
    throw error;
  }
}

// What `fromBinary` allows nested groups in unknown fields: its recursion limit (100) less the
// depth of the message being read (the event 1, its VoteCast 2, the cast time 3).
const EVENT_SKIP_DEPTH = 99;
const CAST_SKIP_DEPTH = 98;
const TIMESTAMP_SKIP_DEPTH = 97;

/**
 * `fromBinary(GameVoteEventSchema, bytes)`, read the way its compiled reader reads: any field
 * order; a repeated string or number, last one wins; a repeated `vote_cast` or `cast_at` merges
 * into the one read before; unknown fields kept in `$unknown`; a known field read by its type
 * whatever its wire type says (protobuf-es does not check it). Throws on malformed bytes with the
 * reader's own errors, so a consumer parks exactly the messages it parked before.
 */
export function decodeGameVoteEvent(bytes: Uint8Array): GameVoteEvent {
  const reader = new BinaryReader(bytes);
  const end = bytes.byteLength;
  let tournamentId = '';
  let cast: VoteCast | undefined;
  let unknown: UnknownField[] | undefined;
  while (reader.pos < end) {
    const tag = reader.tag();
    const fieldNo = tag[0];
    switch (fieldNo) {
      case 1:
        tournamentId = reader.string(true);
        break;
      case 2:
        cast = readVoteCast(reader, cast ?? newVoteCast());
        break;
      default:
        (unknown ??= []).push(skip(reader, fieldNo, tag[1], EVENT_SKIP_DEPTH));
    }
  }
  const event: GameVoteEvent = {
    $typeName: 'underdog.events.v1.GameVoteEvent',
    tournamentId,
    kind: cast === undefined ? { case: undefined } : { case: 'voteCast', value: cast },
  };
  if (unknown !== undefined) event.$unknown = unknown;
  return event;
}

/** A VoteCast as `create(VoteCastSchema)` makes it: no cast time, every other field zero. */
function newVoteCast(): VoteCast {
  return {
    $typeName: 'underdog.events.v1.VoteCast',
    voteId: '',
    gameId: '',
    userId: '',
    username: '',
    roundNumber: 0,
    imageId: '',
    deviceId: '',
    fairPlayDeviceId: '',
    fairPlayAddressPrefix: '',
    fairPlayUserAgent: '',
  };
}

/** A length-delimited VoteCast, read into `cast` (a fresh one or the one read before). */
function readVoteCast(reader: BinaryReader, cast: VoteCast): VoteCast {
  const length = reader.uint32();
  const end = reader.pos + length;
  const unknown = cast.$unknown ?? [];
  while (reader.pos < end) {
    const tag = reader.tag();
    const fieldNo = tag[0];
    switch (fieldNo) {
      case 1:
        cast.voteId = reader.string(true);
        break;
      case 2:
        cast.gameId = reader.string(true);
        break;
      case 3:
        cast.userId = reader.string(true);
        break;
      case 4:
        cast.username = reader.string(true);
        break;
      case 5:
        cast.roundNumber = reader.uint32();
        break;
      case 6:
        cast.imageId = reader.string(true);
        break;
      case 7:
        cast.castAt = readTimestamp(reader, cast.castAt ?? newTimestamp());
        break;
      case 8:
        cast.deviceId = reader.string(true);
        break;
      case 9:
        cast.fairPlayDeviceId = reader.string(true);
        break;
      case 10:
        cast.fairPlayAddressPrefix = reader.string(true);
        break;
      case 11:
        cast.fairPlayUserAgent = reader.string(true);
        break;
      default:
        unknown.push(skip(reader, fieldNo, tag[1], CAST_SKIP_DEPTH));
    }
  }
  if (unknown.length > 0) cast.$unknown = unknown;
  return cast;
}

function newTimestamp(): Timestamp {
  return { $typeName: 'google.protobuf.Timestamp', seconds: BigInt(0), nanos: 0 };
}

/** A length-delimited google.protobuf.Timestamp, read into `timestamp`. */
function readTimestamp(reader: BinaryReader, timestamp: Timestamp): Timestamp {
  const length = reader.uint32();
  const end = reader.pos + length;
  const unknown = timestamp.$unknown ?? [];
  while (reader.pos < end) {
    const tag = reader.tag();
    const fieldNo = tag[0];
    switch (fieldNo) {
      case 1:
        // A string only where BigInt is missing, which Node never is; fromBinary keeps it as is.
        timestamp.seconds = reader.int64() as bigint;
        break;
      case 2:
        timestamp.nanos = reader.int32();
        break;
      default:
        unknown.push(skip(reader, fieldNo, tag[1], TIMESTAMP_SKIP_DEPTH));
    }
  }
  if (unknown.length > 0) timestamp.$unknown = unknown;
  return timestamp;
}

function skip(reader: BinaryReader, no: number, wireType: WireType, depth: number): UnknownField {
  return { no, wireType, data: reader.skip(wireType, no, depth) };
}
