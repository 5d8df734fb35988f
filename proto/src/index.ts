// The contracts every service builds on: generated messages and services (gen/, never edited by
// hand), the Kafka event conventions, and the protobuf runtime helpers they need, re-exported so
// that every package uses the one runtime version this package pins.
export * from '../gen/underdog/tournament/v1/tournament_pb';
export * from '../gen/underdog/events/v1/tournament_lifecycle_pb';
export * from '../gen/underdog/events/v1/user_events_pb';
export * from '../gen/underdog/events/v1/notification_requests_pb';
export * from '../gen/underdog/auth/v1/auth_pb';
export * from '../gen/underdog/notification/v1/notification_pb';
export * from '../gen/underdog/common/v1/actor_pb';
export * from '../gen/underdog/ads/v1/ads_pb';
export * from '../gen/underdog/events/v1/ads_catalog_pb';
export * from '../gen/underdog/events/v1/game_votes_pb';
export * from '../gen/underdog/events/v1/game_events_pb';
export * from '../gen/underdog/events/v1/player_outcomes_pb';
export * from '../gen/underdog/events/v1/fair_play_signals_pb';
export * from '../gen/underdog/events/v1/admin_actions_pb';
export * from '../gen/underdog/events/v1/session_revocations_pb';
export * from '../gen/underdog/game/v1/game_pb';

export { EventHeader, encodeEvent, eventTypeOf } from './events';
export type { EncodedEvent, EventEnvelope } from './events';
export { decodeGameVoteEvent, encodeGameVoteEvent } from './game-vote-codec';
export type { GameVoteInput } from './game-vote-codec';

export { clone, create, equals, fromBinary, isMessage, toBinary, toJson } from '@bufbuild/protobuf';
export type {
  DescMessage,
  DescService,
  Message,
  MessageInitShape,
  MessageShape,
} from '@bufbuild/protobuf';
export {
  TimestampSchema,
  timestampDate,
  timestampFromDate,
  timestampFromMs,
  timestampMs,
  timestampNow,
} from '@bufbuild/protobuf/wkt';
export type { Timestamp } from '@bufbuild/protobuf/wkt';
