/** The kinds of content an ad carries (spec §3): plain text, an image or video URL, or markup. */
export const advertisementTypes = ['text', 'image', 'video', 'html'] as const;
export type AdvertisementType = (typeof advertisementTypes)[number];

/** Where in a game an ad runs (spec §3; server rules, "Resolving a round"). */
export const displayPositions = ['between_rounds', 'before_game', 'after_game'] as const;
export type DisplayPosition = (typeof displayPositions)[number];

/** Limits and defaults of the advertisement rules (spec §3, §5, §9). */
export const advertisementRules = {
  defaultDisplayPosition: 'between_rounds',
  defaultDuration: 5,
  minDuration: 1,
  maxDuration: 60,
  maxTitleLength: 200,
  maxContentLength: 10_000,
} as const satisfies Record<string, number | DisplayPosition>;

/** An advertisement as the service sees it (document id = ad id, a UUID). */
export interface Advertisement {
  id: string;
  title: string;
  type: AdvertisementType;
  /** Text, a URL or markup, by type. */
  content: string;
  displayPosition: DisplayPosition;
  /** Inactive ads stay in the admin list but never run. */
  isActive: boolean;
  /** Seconds, 1–60. */
  duration: number;
  createdAt: Date;
  updatedAt: Date;
}

/** The fields an admin sets; the rest (id, timestamps) the service does. */
export type AdvertisementFields = Omit<Advertisement, 'id' | 'createdAt' | 'updatedAt'>;

/** An update: only the fields present change. */
export type AdvertisementChanges = Partial<AdvertisementFields>;
