import { resolveRound } from '../../../services/game-engine/src/domain/resolution';
import { RingDetector, addressPrefixHash, userAgentHash, type RingReport } from '../src';

/**
 * A simulated tournament for the ring-detection acceptance tests: honest bots of mixed strategies
 * on realistic networks (households, a campus NAT, mobile carriers' shared prefixes, neighbours
 * on one ISP /24), optionally a ring of accounts that covers the images, played round by round
 * with the engine's own `resolveRound`. Everything derives from the seed.
 */
export interface SimulationOptions {
  seed: number;
  honest: number;
  /** Ring accounts (0 = no ring). */
  ringSize: number;
  /** The ring's accounts made over ten days, each in another browser (docs/fairness.md, limits). */
  carefulRing?: boolean;
}

export interface SimulationResult {
  report: RingReport;
  ring: string[];
  honest: string[];
  roundsPlayed: number;
  ringFlagged: number;
  honestFlagged: number;
  /** The game's end as the engine's rule decided it. */
  decidedBy: string;
  winner: string | undefined;
}

const secret = 'simulation-secret';
const day = 86_400_000;
const gameStart = Date.UTC(2026, 10, 20, 19, 0, 0);
const roundMs = 20_000;
const totalRounds = 17;

/** A browser as real traffic shows them: a few families, many versions and phone models. */
function userAgent(random: () => number): string {
  const roll = random();
  const of = (n: number) => Math.floor(random() * n);
  if (roll < 0.35) {
    const models = [
      'Pixel 8',
      'Pixel 7a',
      'SM-A536B',
      'SM-S911B',
      'SM-A146B',
      'M2101K6G',
      'CPH2451',
      'moto g54',
    ];
    return `Mozilla/5.0 (Linux; Android ${12 + of(3)}; ${models[of(models.length)]}) AppleWebKit/537.36 Chrome/${128 + of(4)}.0 Mobile Safari/537.36`;
  }
  if (roll < 0.65) {
    const ios = ['17_6', '18_0', '18_1', '18_1_1'][of(4)];
    return `Mozilla/5.0 (iPhone; CPU iPhone OS ${ios} like Mac OS X) AppleWebKit/605.1.15 Version/${ios!.split('_').slice(0, 2).join('.')} Mobile Safari/604.1`;
  }
  if (roll < 0.9)
    return `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/${128 + of(4)}.0 Safari/537.36`;
  return `Mozilla/5.0 (X11; Linux x86_64; rv:${130 + of(4)}.0) Gecko/20100101 Firefox/${130 + of(4)}.0`;
}

type Strategy = 'random' | 'favourite' | 'leastPopularGuesser' | 'copycat';

interface Bot {
  userId: string;
  strategy: Strategy | 'ring';
  favourite: number;
  /** Median reaction time, ms after the round opens. */
  reaction: number;
}

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function simulateTournament(options: SimulationOptions): SimulationResult {
  const random = mulberry32(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const between = (low: number, high: number) => low + random() * (high - low);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const ip = (prefix: string) => `${prefix}.${1 + Math.floor(random() * 254)}`;
  const ispPrefix = () =>
    `${81 + Math.floor(random() * 6)}.${Math.floor(random() * 256)}.${Math.floor(random() * 4)}`;
  const carrierPrefixes = Array.from({ length: 30 }, (_, i) => `100.64.${i}`);
  const campusPrefix = '130.92.7';

  const detector = new RingDetector();
  const bots: Bot[] = [];
  const device = () => `dev-${Math.floor(random() * 2 ** 48).toString(16)}`;
  const signIn = (
    userId: string,
    kind: 'registered' | 'loggedIn' | 'joined',
    at: number,
    address: string,
    deviceId: string,
    agent: string,
  ) =>
    detector.record({
      kind,
      userId,
      at,
      deviceId,
      addressPrefix: addressPrefixHash(address, secret),
      userAgent: userAgentHash(agent, secret),
    });

  const strategies: Strategy[] = ['random', 'favourite', 'leastPopularGuesser', 'copycat'];
  const strategyWeights = [0.35, 0.25, 0.2, 0.2];
  const honestStrategy = (): Strategy => {
    let roll = random();
    for (let i = 0; i < strategies.length; i++) {
      roll -= strategyWeights[i]!;
      if (roll < 0) return strategies[i]!;
    }
    return 'random';
  };
  const anyRegistration = () => gameStart - between(0.2, 14) * day;
  const homes = new Map<string, string>();

  // Honest players: a campus behind one NAT (a class of them signing up together), households
  // (some signing up the same evening, some sharing a tablet), everyone else on an ISP /24 drawn
  // from a pool small enough that unrelated neighbours share one; a quarter also seen on a mobile
  // carrier's shared prefix.
  let next = 0;
  const addHonest = (
    home: string,
    registeredAt: number,
    deviceId: string,
    familyAgent?: string,
  ) => {
    const userId = `honest-${String(next++).padStart(3, '0')}`;
    const strategy = honestStrategy();
    bots.push({
      userId,
      strategy,
      favourite: Math.floor(random() * 4),
      reaction:
        strategy === 'random' || strategy === 'favourite'
          ? between(2_500, 7_000)
          : between(5_000, 11_000),
    });
    homes.set(userId, home);
    const agent = familyAgent !== undefined && random() < 0.3 ? familyAgent : userAgent(random);
    signIn(userId, 'registered', registeredAt, ip(home), deviceId, agent);
    if (random() < 0.25) {
      signIn(
        userId,
        'loggedIn',
        registeredAt + between(0, day),
        ip(pick(carrierPrefixes)),
        deviceId,
        agent,
      );
    }
    signIn(userId, 'joined', gameStart - between(0, 600_000), ip(home), deviceId, agent);
  };
  const campus = Math.round(options.honest * 0.15);
  const classEvening = gameStart - between(2, 10) * day;
  for (let i = 0; i < campus; i++) {
    const registeredAt = i < 10 ? classEvening + between(0, 3_600_000) : anyRegistration();
    addHonest(campusPrefix, registeredAt, device());
  }
  while (next < campus + Math.round(options.honest * 0.2)) {
    const home = ispPrefix();
    const size = 2 + Math.floor(random() * 3);
    const together = random() < 0.4;
    const evening = anyRegistration();
    const tablet = random() < 0.25 ? device() : undefined;
    const familyAgent = userAgent(random);
    for (let i = 0; i < size; i++) {
      const registeredAt = together ? evening + between(0, 7_200_000) : anyRegistration();
      addHonest(home, registeredAt, i < 2 && tablet !== undefined ? tablet : device(), familyAgent);
    }
  }
  const flatmate = options.ringSize > 0 ? 1 : 0;
  while (next < options.honest - flatmate) addHonest(ispPrefix(), anyRegistration(), device());

  // The ring: accounts made one evening by one person at home, played on game night from two
  // networks (home and a second line), each with its own device id (one device backs one
  // participant), one browser.
  const ring: string[] = [];
  if (options.ringSize > 0) {
    const networks = [ispPrefix(), ispPrefix()];
    const evening = gameStart - between(1, 6) * day;
    const operatorAgent = userAgent(random);
    for (let i = 0; i < options.ringSize; i++) {
      const agent = options.carefulRing ? userAgent(random) : operatorAgent;
      const userId = `ring-${i}`;
      ring.push(userId);
      bots.push({ userId, strategy: 'ring', favourite: 0, reaction: 0 });
      // All made at home; on game night half of them play over the second line.
      const network = networks[i < options.ringSize / 2 ? 0 : 1]!;
      const deviceId = device();
      signIn(
        userId,
        'registered',
        options.carefulRing ? evening - between(0, 10) * day : evening + between(0, 5_400_000),
        ip(networks[0]!),
        deviceId,
        agent,
      );
      signIn(userId, 'joined', gameStart - between(0, 300_000), ip(network), deviceId, agent);
    }
    // An honest flatmate on the ring's home network.
    addHonest(networks[0]!, anyRegistration(), device());
  }
  const honest = bots.filter((bot) => bot.strategy !== 'ring').map((bot) => bot.userId);

  // The game, round by round with the engine's rule.
  let alive = bots.map((bot) => bot.userId).sort();
  let lastCounts: number[] | undefined;
  let roundsPlayed = 0;
  let decidedBy = 'no_winner';
  let winner: string | undefined;
  const byId = new Map(bots.map((bot) => [bot.userId, bot]));
  for (let roundNumber = 1; roundNumber <= totalRounds; roundNumber++) {
    roundsPlayed = roundNumber;
    const opensAt = gameStart + (roundNumber - 1) * 40_000;
    const imageIds = [0, 1, 2, 3].map((position) => `r${roundNumber}-img${position}`);
    detector.roundStarted(roundNumber, imageIds);
    const ballots = new Map<string, string>();
    const castAt = new Map<string, number>();
    const order = [0, 1, 2, 3].sort((a, b) =>
      lastCounts === undefined ? random() - 0.5 : lastCounts[a]! - lastCounts[b]!,
    );
    const ringAlive = alive.filter((userId) => byId.get(userId)!.strategy === 'ring');
    const ringStart = opensAt + between(1_500, 12_000);
    ringAlive.forEach((userId, index) => {
      ballots.set(userId, imageIds[order[index % 4]!]!);
      castAt.set(userId, ringStart + index * between(250, 700));
    });
    for (const userId of alive) {
      const bot = byId.get(userId)!;
      if (bot.strategy === 'ring' || random() < 0.03) continue;
      ballots.set(userId, imageIds[choose(bot, lastCounts, random)]!);
      const delay = bot.reaction * Math.exp(0.45 * gaussian());
      castAt.set(userId, opensAt + Math.min(roundMs - 300, Math.max(400, delay)));
    }
    for (const [userId, imageId] of ballots) {
      detector.record({ kind: 'voted', userId, at: castAt.get(userId)!, roundNumber, imageId });
    }
    const outcome = resolveRound({
      roundNumber,
      totalRounds,
      imageIds,
      alive,
      ballots,
      drawSeed: `seed-${options.seed}`,
    });
    lastCounts = outcome.results.map((result) => result.votes);
    alive = outcome.advanced;
    if (outcome.end !== undefined) {
      decidedBy = outcome.end.decidedBy;
      winner = outcome.end.decidedBy === 'no_winner' ? undefined : outcome.end.winnerUserId;
      break;
    }
  }

  const report = detector.report();
  const flagged = new Set(report.flagged);
  return {
    report,
    ring,
    honest,
    roundsPlayed,
    ringFlagged: ring.filter((userId) => flagged.has(userId)).length,
    honestFlagged: honest.filter((userId) => flagged.has(userId)).length,
    decidedBy,
    winner,
  };
}

function choose(bot: Bot, lastCounts: number[] | undefined, random: () => number): number {
  const uniform = () => Math.floor(random() * 4);
  switch (bot.strategy) {
    case 'random':
    case 'ring':
      return uniform();
    case 'favourite':
      return random() < 0.6 ? bot.favourite : uniform();
    case 'leastPopularGuesser': {
      if (lastCounts === undefined || random() < 0.3) return uniform();
      const fewest = Math.min(...lastCounts);
      return lastCounts.indexOf(fewest);
    }
    case 'copycat': {
      if (lastCounts === undefined) return uniform();
      const total = lastCounts.reduce((sum, count) => sum + count, 0);
      let roll = random() * total;
      for (let i = 0; i < 4; i++) {
        roll -= lastCounts[i]!;
        if (roll < 0) return i;
      }
      return uniform();
    }
  }
}
