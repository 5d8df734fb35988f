/**
 * Who the demo's bots look like to the fair-play signals (issue 28 §7, docs/fairness.md): the
 * gateway records each player's address prefix and user agent as keyed hashes when they register,
 * join and vote, and the fair-play report links accounts by shared prefixes and devices. The bots
 * all run in this process, so without a made-up origin they would all come from 127.0.0.1 with no
 * user agent: one cluster of everyone. Instead each bot gets a plausible address and browser:
 *
 * - most honest bots: an address on a network of their own and one of many browser builds;
 * - a few honest households: two or three bots on one home network, each in its own browser;
 * - an honest café: eight bots on one public network, varied browsers;
 * - **a ring** (`DEMO_RING_SIZE` accounts, when there are at least `RING_MIN_BOTS` bots): one
 *   person's accounts, made one after the other in one browser at home, playing from home and
 *   from a second line (two shared prefixes), voting together as a covering set (each on another
 *   image, so one of them always has the least popular one).
 *
 * An admin opening a demo tournament's fair-play section sees the ring flagged with its evidence,
 * and the linked honest groups (households, the café) listed but not flagged. Addresses are from
 * the private and documentation ranges; nothing here reaches a network.
 */

/** The ring's accounts. */
export const DEMO_RING_SIZE = 8;
/** Fewer bots than this: no ring (a ring of 8 among a handful of bots is most of the game). */
export const RING_MIN_BOTS = 40;
/** The ring's first bot: the one after the warm-up game's three. */
const RING_FIRST_BOT = 4;

export interface BotIdentity {
  /** The client address the bot's requests come from. */
  ip: string;
  userAgent: string;
  /** One of the ring's accounts. */
  ring: boolean;
}

/**
 * The ring's bot indices (1-based, as the bots are numbered and sign up): consecutive, so made
 * together, and early (right after the warm-up's three), so the ring is signed up in time for the
 * first demo game whatever the machine's speed.
 */
export function ringIndices(bots: number): number[] {
  if (bots < RING_MIN_BOTS) return [];
  return Array.from({ length: DEMO_RING_SIZE }, (_, k) => RING_FIRST_BOT + k);
}

/** The ring's one browser: a build no honest bot uses. */
const RING_USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64; rv:115.0) Gecko/20100101 Firefox/115.0 Waterfox/G6.0.9';
/** The ring's home network and its second line (two /24s). */
const RING_HOME = '203.0.113';
const RING_SECOND_LINE = '198.51.100';
/** The café: one public network for eight honest bots. */
const CAFE = '192.0.2';
const CAFE_EVERY = 23; // bots 23, 46, 69, …, the first eight of them
const HOUSEHOLD_EVERY = 17; // bots 17–18, 34–36 (every other one a household of three), …

/**
 * The bot's origin for its sign-up and, for a ring account, where it plays from (`playing`: the
 * second line for half of the ring).
 */
export function identityOf(index: number, bots: number, playing = false): BotIdentity {
  const ring = ringIndices(bots);
  const k = ring.indexOf(index);
  if (k >= 0) {
    const network = playing && k % 2 === 1 ? RING_SECOND_LINE : RING_HOME;
    return { ip: `${network}.${10 + k}`, userAgent: RING_USER_AGENT, ring: true };
  }
  const userAgent = browserOf(index);
  const cafeSlot = index % CAFE_EVERY === 0 ? index / CAFE_EVERY : 0;
  if (cafeSlot >= 1 && cafeSlot <= 8)
    return { ip: `${CAFE}.${100 + cafeSlot}`, userAgent, ring: false };
  // Households: the bot starting one and the next one or two.
  const household = Math.floor(index / HOUSEHOLD_EVERY);
  const offset = index - household * HOUSEHOLD_EVERY;
  const size = household % 2 === 0 ? 3 : 2;
  if (household >= 1 && offset < size) {
    return { ip: `10.${household}.0.${20 + offset}`, userAgent, ring: false };
  }
  // A network of its own: one /24 per bot.
  return { ip: `10.${128 + (index >> 8)}.${index & 255}.7`, userAgent, ring: false };
}

/** A browser build as real traffic shows them: a few families, many versions and phones. */
function browserOf(index: number): string {
  const pick = (n: number, salt: number) => hash(index * 31 + salt) % n;
  const roll = pick(100, 1);
  if (roll < 35) {
    const models = ['Pixel 8', 'Pixel 7a', 'SM-A536B', 'SM-S911B', 'SM-A146B', 'CPH2451'];
    return `Mozilla/5.0 (Linux; Android ${12 + pick(3, 2)}; ${models[pick(models.length, 3)]}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${128 + pick(4, 4)}.0.0.0 Mobile Safari/537.36`;
  }
  if (roll < 65) {
    const ios = ['17_6', '18_0', '18_1', '18_1_1'][pick(4, 5)]!;
    return `Mozilla/5.0 (iPhone; CPU iPhone OS ${ios} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/${ios.split('_').slice(0, 2).join('.')} Mobile/15E148 Safari/604.1`;
  }
  if (roll < 90) {
    return `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${128 + pick(4, 6)}.0.0.0 Safari/537.36`;
  }
  return `Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7; rv:${130 + pick(4, 7)}.0) Gecko/20100101 Firefox/${130 + pick(4, 7)}.0`;
}

/** A small integer hash (deterministic: the same bot looks the same on every start). */
function hash(value: number): number {
  let x = (value ^ 0x9e3779b9) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}
