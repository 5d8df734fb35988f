import { z } from 'zod';
import {
  advertisementRules as rules,
  advertisementTypes,
  displayPositions,
  type AdvertisementType,
  type AdvertisementChanges,
  type AdvertisementFields,
} from './advertisement';

/**
 * Input rules with the product's messages (spec §5, server-enforced). The handlers in rpc.ts
 * parse requests with these (kit `parseInput`), so the use cases and the store work with values
 * that are already valid.
 */

/** Lengths in characters (code points), so an emoji counts once, as a person would count it. */
const characters = (value: string) => Array.from(value).length;

const title = (emptyMessage: string) =>
  z
    .string()
    .trim()
    .min(1, emptyMessage)
    .refine(
      (value) => characters(value) <= rules.maxTitleLength,
      `Title must be at most ${rules.maxTitleLength} characters`,
    );

/** Content is kept as given (markup may care about whitespace) but may not be blank. */
const content = (emptyMessage: string) =>
  z
    .string()
    .refine((value) => value.trim().length > 0, emptyMessage)
    .refine(
      (value) => characters(value) <= rules.maxContentLength,
      `Content must be at most ${rules.maxContentLength} characters`,
    );

const type = z.enum(advertisementTypes, {
  error: `Type must be one of ${advertisementTypes.join(', ')}`,
});

export const displayPosition = z.enum(displayPositions, {
  error: `displayPosition must be one of ${displayPositions.join(', ')}`,
});

const durationMessage = `Duration must be between ${rules.minDuration} and ${rules.maxDuration} seconds`;
const duration = z
  .number(durationMessage)
  .int(durationMessage)
  .min(rules.minDuration, durationMessage)
  .max(rules.maxDuration, durationMessage);

/** Keys in the order of the admin form, so the first problem reported is the form's first. */
export const newAdvertisementInput = z.object({
  title: title('Title is required'),
  type,
  content: content('Content is required'),
  displayPosition: displayPosition.default(rules.defaultDisplayPosition),
  duration: duration.default(rules.defaultDuration),
  isActive: z.boolean().default(true),
}) satisfies z.ZodType<AdvertisementFields>;

/** Every field optional; one that is given follows the same rules as on create. */
export const advertisementChangesInput = z.object({
  title: title('Title cannot be empty').optional(),
  type: type.optional(),
  content: content('Content cannot be empty').optional(),
  displayPosition: displayPosition.optional(),
  duration: duration.optional(),
  isActive: z.boolean().optional(),
}) satisfies z.ZodType<AdvertisementChanges>;

/**
 * The URL an image or video ad shows, trimmed, or the message refusing it: `https:` only in
 * production, `http:` too elsewhere (a local CDN), and an absolute URL with a host; never
 * `javascript:`, `data:` or a relative path. Parsed as browsers parse it (WHATWG URL), so a
 * scheme hidden by tabs or case is seen for what it is.
 */
export function mediaUrl(
  type: AdvertisementType,
  content: string,
  allowPlainHttp: boolean,
): { url: string } | { problem: string } {
  const schemes = allowPlainHttp ? ['http:', 'https:'] : ['https:'];
  const problem = `The ${type} ad's content must be an ${allowPlainHttp ? 'http:// or https://' : 'https://'} URL`;
  const trimmed = content.trim();
  if (!URL.canParse(trimmed)) return { problem };
  const url = new URL(trimmed);
  if (!schemes.includes(url.protocol) || url.hostname === '') return { problem };
  return { url: trimmed };
}

/** Image and video ads carry a URL; text and html ads carry anything. */
export function carriesUrl(type: AdvertisementType): boolean {
  return type === 'image' || type === 'video';
}
