import {
  AdvertisementSchema,
  AdvertisementSnapshotSchema,
  create,
  timestampFromDate,
  toBinary,
  type Advertisement as ProtoAdvertisement,
  type CreateAdvertisementRequest,
  type UpdateAdvertisementRequest,
} from '@underdog/proto';
import type { Advertisement } from './domain/advertisement';

/**
 * The one place where the ads domain meets its protobuf contracts (ads.proto, actor.proto,
 * ads_catalog.proto), in both directions. Requests come out as plain values for the validators;
 * nothing else in the service imports generated types.
 */

export function advertisementToProto(advertisement: Advertisement): ProtoAdvertisement {
  return create(AdvertisementSchema, {
    id: advertisement.id,
    title: advertisement.title,
    type: advertisement.type,
    content: advertisement.content,
    displayPosition: advertisement.displayPosition,
    isActive: advertisement.isActive,
    duration: advertisement.duration,
    createdAt: timestampFromDate(advertisement.createdAt),
    updatedAt: timestampFromDate(advertisement.updatedAt),
  });
}

/** The fields an administrator writes, as both requests carry them. */
type EditableFields = Pick<
  CreateAdvertisementRequest,
  'title' | 'type' | 'content' | 'displayPosition' | 'duration' | 'isActive'
>;

/** A request's editable fields without the message's own (`$typeName`), unchecked. */
function editableFieldsOf<R extends { [K in keyof EditableFields]?: EditableFields[K] }>(
  request: R,
): Pick<R, keyof EditableFields> {
  return {
    title: request.title,
    type: request.type,
    content: request.content,
    displayPosition: request.displayPosition,
    duration: request.duration,
    isActive: request.isActive,
  };
}

/** The fields of a create request, unchecked (see domain/validation.ts). */
export const newAdvertisementFromProto = (request: CreateAdvertisementRequest) =>
  editableFieldsOf(request);

/** The fields of an update request, unchecked; absent ones are undefined. */
export const advertisementChangesFromProto = (request: UpdateAdvertisementRequest) =>
  editableFieldsOf(request);

/** The `event-type` header of every `ads.catalog` message, tombstones included. */
export const snapshotEventType = AdvertisementSnapshotSchema.typeName;

/** The value of an `ads.catalog` message: the ad as it stands after a change. */
export function encodeSnapshot(advertisement: Advertisement): Uint8Array {
  return toBinary(
    AdvertisementSnapshotSchema,
    create(AdvertisementSnapshotSchema, { advertisement: advertisementToProto(advertisement) }),
  );
}
