import { requireAdmin } from '@underdog/kit';
import { z } from 'zod';
import { adminAuditOf } from './admin-actions';
import { actorOf, delegate } from './actors';
import type { GatewayClients } from './clients';
import { notAuthenticated, type RequestOrigin } from './session';
import { body, parseBody } from './validation';

/** The reason's bounds, after trimming (proto `DisqualifyParticipantRequest.reason`). */
export const disqualificationReasonMaxLength = 500;

/** Who is disqualified, and why: shown to the participant and kept with the records. */
interface DisqualificationInput {
  tournamentId: string;
  userId: string;
  reason: string;
}

/** A required string: absent and null both read "<field> is required". */
const requiredText = () =>
  z.string({ error: (issue) => (issue.input == null ? 'is required' : 'must be a string') });

const id = () =>
  requiredText().trim().min(1, { error: 'is required' }).max(200, { error: 'is too long' });

const reason = () =>
  requiredText()
    .trim()
    .min(1, { error: 'is required' })
    .max(disqualificationReasonMaxLength, {
      error: `must be at most ${disqualificationReasonMaxLength} characters`,
    });

/** The request's body: `{ "reason": "…" }` (the ids are the path's, or GraphQL's arguments). */
const disqualificationBody = body({ reason: reason() });

const disqualificationIds = z.object({
  tournamentId: id(),
  userId: id(),
});

/**
 * `POST /api/admin/tournaments/{id}/participants/{userId}/disqualify` and GraphQL
 * `disqualifyParticipant` (docs/api-rest.md): what the disqualification did.
 */
export interface DisqualificationView {
  tournamentId: string;
  userId: string;
  /** As stored (trimmed). */
  reason: string;
  /** The game was running: the participant goes out at the end of `effectiveRound`. */
  duringGame: boolean;
  /** During the game: the round at whose end the participant goes out; null after it. */
  effectiveRound: number | null;
  /** After the game: the winner once the outcome was re-decided (null: none, or during the game). */
  winner: { username: string } | null;
}

/**
 * An administrator's disqualification of a participant (issue 28), behind both edges. The admin
 * check comes first, so a non-admin learns nothing of the tournament nor of what a valid request
 * looks like (401 for a visitor, 403 `ADMIN_ONLY` otherwise); then the shape (400 naming the
 * field); then the game engine's answer (404 for an unknown tournament or participant, the
 * engine's own 400s). Disqualifying someone twice repeats the first effect (the engine's rule).
 */
export async function disqualifyParticipant(
  clients: Pick<GatewayClients, 'game'>,
  origin: RequestOrigin,
  ids: { tournamentId: unknown; userId: unknown },
  requestBody: unknown,
): Promise<DisqualificationView> {
  const actor = await actorOf(origin);
  try {
    if (!actor.userId) throw notAuthenticated();
    requireAdmin(actor);
  } catch (refusal) {
    const tournamentId = typeof ids.tournamentId === 'string' ? ids.tournamentId : '';
    await adminAuditOf(clients.game)?.refused(
      actor,
      'game.disqualifyParticipant',
      refusal,
      tournamentId,
    );
    throw refusal;
  }
  const checked: DisqualificationInput = {
    ...parseBody(disqualificationIds, ids),
    ...parseBody(disqualificationBody, requestBody),
  };
  const answer = await delegate(
    clients.game.disqualifyParticipant({
      actor,
      tournamentId: checked.tournamentId,
      userId: checked.userId,
      reason: checked.reason,
    }),
  );
  return {
    tournamentId: checked.tournamentId,
    userId: checked.userId,
    reason: checked.reason,
    duringGame: answer.duringGame,
    effectiveRound: answer.duringGame ? answer.effectiveRound : null,
    winner: answer.winnerUsername === undefined ? null : { username: answer.winnerUsername },
  };
}
