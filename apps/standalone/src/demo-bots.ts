/**
 * The demo's bots: how each picks (`pickImage`), what a bot is, signing one up (registered, and
 * verified with the code from the dev mailbox), and the origin it plays from.
 */
import { randomBytes } from 'node:crypto';
import type { RequestOrigin } from '@underdog/gateway';
import { isAppError } from '@underdog/kit';
import { appErrorFromRpc } from '@underdog/rpc';
import type { DemoDependencies } from './demo-dependencies';
import { identityOf, type BotIdentity } from './demo-population';

/** How often a bot signing up looks for its code in the dev mailbox, and for how long. */
const MAILBOX_POLL_MS = 250;
const MAILBOX_ATTEMPTS = 80;

/**
 * How a bot picks. The mix keeps a game going for several rounds: the crowd's favourite and the
 * obvious contrarian pick are eliminated early, the random pickers thin out round by round, and a
 * few bots doze off now and then.
 */
export type Strategy = 'favourite' | 'contrarian' | 'random' | 'sleepy';
const strategies: Strategy[] = ['favourite', 'contrarian', 'random', 'random', 'sleepy'];

/** The option a bot picks this round, or undefined when it sits the round out. */
export function pickImage(strategy: Strategy, random: () => number): number | undefined {
  switch (strategy) {
    case 'favourite':
      return random() < 0.8 ? 0 : 1;
    case 'contrarian':
      return random() < 0.8 ? 3 : 2;
    case 'random':
      return Math.floor(random() * 4);
    case 'sleepy':
      return random() < 0.3 ? undefined : Math.floor(random() * 4);
  }
}

export interface Bot {
  index: number;
  email: string;
  deviceId: string;
  sessionId: string;
  /** How it plays: a strategy of its own, or as one of the ring's accounts. */
  strategy: Strategy | 'ring';
  /** Where it plays from (demo-population.ts). */
  origin: BotIdentity;
}

/** One bot, registered and verified; undefined if its code never came. */
export async function signUpBot(
  deps: DemoDependencies,
  run: string,
  index: number,
  isStopped: () => boolean,
): Promise<Bot | undefined> {
  const { clients } = deps;
  const number = String(index).padStart(3, '0');
  const email = `bot-${number}-${run}@demo.underdog.local`;
  const deviceId = `demo-bot-${run}-${number}`;
  const answer = await clients.auth.register({
    email,
    displayName: `Bot ${number}`,
    password: `bot${randomBytes(9).toString('base64url')}1a`,
    deviceId,
  });
  const sessionId = answer.session?.id ?? '';
  const signUpOrigin = identityOf(index, deps.bots);
  if (answer.user) {
    deps.registered?.(withIdentity(deps, sessionId, deviceId, signUpOrigin), answer.user.id);
  }
  for (let attempt = 0; attempt < MAILBOX_ATTEMPTS && !isStopped(); attempt += 1) {
    const { messages } = await clients.notification.listMailbox({});
    const message = messages.find((candidate) => candidate.to === email);
    const code = message && /\b(\d{6})\b/.exec(message.text)?.[1];
    if (code) {
      await clients.auth.verifyEmail({ proof: { case: 'code', value: code }, sessionId });
      const origin = identityOf(index, deps.bots, true);
      return {
        index,
        email,
        deviceId,
        sessionId,
        strategy: origin.ring ? 'ring' : (strategies[index % strategies.length] ?? 'random'),
        origin,
      };
    }
    await sleep(MAILBOX_POLL_MS);
  }
  return undefined;
}

/** The bot's own origin: its session, from its own network and browser. */
export function originOf(deps: DemoDependencies, bot: Bot): RequestOrigin {
  return withIdentity(deps, bot.sessionId, bot.deviceId, bot.origin);
}

/** The bot's session, as if from its own network and browser (see demo-population.ts). */
export function withIdentity(
  deps: DemoDependencies,
  sessionId: string,
  deviceId: string,
  identity: BotIdentity,
): RequestOrigin {
  return {
    ...deps.originOfSession(sessionId, deviceId),
    ip: identity.ip,
    userAgent: identity.userAgent,
  };
}

export function reasonOf(error: unknown): string | undefined {
  const appError = isAppError(error) ? error : appErrorFromRpc(error);
  return appError.reason ?? appError.code;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
