import {
  detectRings,
  type ParticipantSignals,
  type RingDetectionOptions,
  type RingReport,
  type RoundVote,
} from './rings';
import type { Signal } from './signals';

/**
 * A tournament's signals folded as they arrive, so the report can be asked for at any moment of
 * a live game (after each round's results, say) and once more at its end. Recording is O(1) per
 * signal; `report()` runs `detectRings` over the folded state (README, "Cost").
 */
export class RingDetector {
  private readonly participants = new Map<
    string,
    {
      registeredAt?: number;
      deviceIds: Set<string>;
      addressPrefixes: Set<string>;
      userAgents: Set<string>;
    }
  >();
  private readonly rounds = new Map<
    number,
    { imageIds: string[]; votes: Map<string, RoundVote> }
  >();

  constructor(private readonly options: Partial<RingDetectionOptions> = {}) {}

  record(signal: Signal): void {
    const participant = this.participant(signal.userId);
    if (signal.deviceId) participant.deviceIds.add(signal.deviceId);
    if (signal.addressPrefix) participant.addressPrefixes.add(signal.addressPrefix);
    if (signal.userAgent) participant.userAgents.add(signal.userAgent);
    switch (signal.kind) {
      case 'registered':
        participant.registeredAt = signal.at;
        break;
      case 'loggedIn':
      case 'joined':
        break;
      case 'voted': {
        const round = this.round(signal.roundNumber);
        // The first counted vote is the vote (one per player per round, as the engine counts).
        if (!round.votes.has(signal.userId)) {
          round.votes.set(signal.userId, {
            userId: signal.userId,
            imageId: signal.imageId,
            castAt: signal.at,
          });
        }
        if (!round.imageIds.includes(signal.imageId)) round.imageIds.push(signal.imageId);
        break;
      }
    }
  }

  /** The round's images, so an image nobody voted for still counts against a covering. */
  roundStarted(roundNumber: number, imageIds: readonly string[]): void {
    const round = this.round(roundNumber);
    for (const id of imageIds) if (!round.imageIds.includes(id)) round.imageIds.push(id);
  }

  report(): RingReport {
    const participants: ParticipantSignals[] = [...this.participants].map(([userId, p]) => ({
      userId,
      ...(p.registeredAt !== undefined ? { registeredAt: p.registeredAt } : {}),
      deviceIds: [...p.deviceIds],
      addressPrefixes: [...p.addressPrefixes],
      userAgents: [...p.userAgents],
    }));
    const rounds = [...this.rounds].map(([roundNumber, round]) => ({
      roundNumber,
      imageIds: [...round.imageIds],
      votes: [...round.votes.values()],
    }));
    return detectRings({ participants, rounds, options: this.options });
  }

  private participant(userId: string) {
    let participant = this.participants.get(userId);
    if (participant === undefined) {
      participant = { deviceIds: new Set(), addressPrefixes: new Set(), userAgents: new Set() };
      this.participants.set(userId, participant);
    }
    return participant;
  }

  private round(roundNumber: number) {
    let round = this.rounds.get(roundNumber);
    if (round === undefined) {
      round = { imageIds: [], votes: new Map() };
      this.rounds.set(roundNumber, round);
    }
    return round;
  }
}
