import { TOTAL_ROUNDS } from '@underdog/rules';
import type { Actor } from '@underdog/proto';
import {
  HOUR,
  MINUTE,
  actors,
  deliveredSoFar,
  failureOf,
  fullChoices,
  inFuture,
  startHarness,
  timestampAt,
  waitFor,
  type Harness,
} from './support';

describe('offline choices', () => {
  let h: Harness;
  let tournamentId: string;
  let startAt: Date;

  beforeEach(async () => {
    h = await startHarness();
    startAt = inFuture(h.clock, HOUR);
    const { tournament } = await h.client.createTournament({
      actor: actors.admin(),
      title: 'Friday night',
      startAt: timestampAt(startAt),
    });
    tournamentId = tournament!.id;
  });
  afterEach(() => h.stop());

  const save = (actor: Actor, choices = fullChoices(), id = tournamentId) =>
    h.client.saveOfflineChoices({ actor, tournamentId: id, choices });
  const participants = async () =>
    (await h.client.getTournament({ id: tournamentId })).tournament!.participantCount;
  const invalid = (message: string) => ({
    code: 'BAD_REQUEST',
    reason: 'VALIDATION_FAILED',
    message,
  });
  const alreadyRegistered = {
    code: 'CONFLICT',
    reason: 'ALREADY_REGISTERED',
    message: 'You have already registered offline choices for this tournament',
  };
  const deviceUsed = {
    code: 'FORBIDDEN',
    reason: 'DEVICE_ALREADY_USED',
    message: 'This device is already registered for this tournament with another account',
  };

  it('saves all 17 choices, makes the user a participant and reports them back by round', async () => {
    const choices = fullChoices().reverse();
    const saved = await save(actors.user('ann'), choices);

    const byRound = fullChoices();
    expect(
      saved.choices.map(({ roundNumber, selectedImageId }) => [roundNumber, selectedImageId]),
    ).toEqual(byRound.map(({ roundNumber, selectedImageId }) => [roundNumber, selectedImageId]));
    expect(saved.tournament).toMatchObject({ id: tournamentId, participantCount: 1 });
    expect(await participants()).toBe(1);
    expect(
      (await h.client.hasOfflineChoices({ actor: actors.user('ann'), tournamentId })).hasChoices,
    ).toBe(true);
    const { choices: stored } = await h.client.getOfflineChoices({
      actor: actors.user('ann'),
      tournamentId,
    });
    expect(stored.map((c) => [c.roundNumber, c.selectedImageId])).toEqual(
      byRound.map((c) => [c.roundNumber, c.selectedImageId]),
    );
  });

  it('counts every user who saves', async () => {
    await save(actors.user('ann'));
    await save(actors.user('bob'));
    expect(await participants()).toBe(2);
  });

  it('reports no choices to visitors and to users who saved none', async () => {
    expect((await h.client.hasOfflineChoices({ tournamentId })).hasChoices).toBe(false);
    expect(
      (await h.client.hasOfflineChoices({ actor: actors.visitor(), tournamentId })).hasChoices,
    ).toBe(false);
    expect(
      (await h.client.hasOfflineChoices({ actor: actors.user('ann'), tournamentId })).hasChoices,
    ).toBe(false);
    expect(
      (await h.client.getOfflineChoices({ actor: actors.user('ann'), tournamentId })).choices,
    ).toEqual([]);
    expect(
      await failureOf(h.client.getOfflineChoices({ actor: actors.visitor(), tournamentId })),
    ).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'NO_SESSION' });
  });

  it('keeps each user to their own choices', async () => {
    await save(
      actors.user('ann'),
      fullChoices(() => '0'),
    );
    const { choices } = await h.client.getOfflineChoices({
      actor: actors.user('bob'),
      tournamentId,
    });
    expect(choices).toEqual([]);
  });

  describe('who may save', () => {
    it('refuses visitors as not authenticated', async () => {
      expect(await failureOf(save(actors.visitor()))).toEqual({
        code: 'UNAUTHENTICATED',
        reason: 'NO_SESSION',
        message: 'Not authenticated',
      });
    });

    it('refuses them before looking at the choices', async () => {
      expect(await failureOf(save(actors.visitor(), []))).toMatchObject({ reason: 'NO_SESSION' });
      expect(await failureOf(save(actors.unverified(), []))).toMatchObject({
        reason: 'EMAIL_NOT_VERIFIED',
      });
      expect(await failureOf(save(actors.user('ann'), []))).toMatchObject({
        reason: 'VALIDATION_FAILED',
      });
    });

    it('refuses users who have not verified their e-mail', async () => {
      expect(await failureOf(save(actors.unverified()))).toEqual({
        code: 'FORBIDDEN',
        reason: 'EMAIL_NOT_VERIFIED',
        message: 'Please verify your email address first',
      });
      expect(await participants()).toBe(0);
    });
  });

  describe('what may be saved', () => {
    const coverAll = `Offline choices must cover all ${TOTAL_ROUNDS} rounds`;
    const roundsOnce = `Round numbers must be 1 to ${TOTAL_ROUNDS}, each once`;
    const options = 'Each choice must be an option from "0" to "3"';
    const withChoice = (round: number, selectedImageId: string) =>
      fullChoices().map((c) => (c.roundNumber === round ? { ...c, selectedImageId } : c));

    it.each([
      ['no choices', [], coverAll],
      ['one round short', fullChoices().slice(1), coverAll],
      [
        'a round twice',
        [...fullChoices().slice(1), { roundNumber: 2, selectedImageId: '0' }],
        roundsOnce,
      ],
      [
        'round 0',
        [{ roundNumber: 0, selectedImageId: '0' }, ...fullChoices().slice(1)],
        roundsOnce,
      ],
      [
        'a round after the last',
        [...fullChoices().slice(1), { roundNumber: TOTAL_ROUNDS + 1, selectedImageId: '0' }],
        roundsOnce,
      ],
      [
        'one choice too many',
        [...fullChoices(), { roundNumber: TOTAL_ROUNDS + 1, selectedImageId: '1' }],
        roundsOnce,
      ],
      ['option "4"', withChoice(3, '4'), options],
      ['option "-1"', withChoice(3, '-1'), options],
      ['an empty option', withChoice(TOTAL_ROUNDS, ''), options],
      ['an image id instead of a position', withChoice(1, 'round-1-image-0'), options],
    ])('refuses %s', async (_case, choices, message) => {
      expect(await failureOf(save(actors.user('ann'), choices))).toEqual(invalid(message));
      expect(await participants()).toBe(0);
      expect(
        (await h.client.hasOfflineChoices({ actor: actors.user('ann'), tournamentId })).hasChoices,
      ).toBe(false);
    });

    it('accepts every option from "0" to "3"', async () => {
      for (const [i, option] of ['0', '1', '2', '3'].entries()) {
        await save(
          actors.user(`user-${i}`),
          fullChoices(() => option),
        );
      }
      expect(await participants()).toBe(4);
    });

    it('answers "Tournament not found" for an unknown tournament', async () => {
      expect(await failureOf(save(actors.user('ann'), fullChoices(), 'nope'))).toMatchObject({
        code: 'NOT_FOUND',
        reason: 'TOURNAMENT_NOT_FOUND',
      });
    });
  });

  describe('the offline window', () => {
    const closed = {
      code: 'CONFLICT',
      reason: 'OFFLINE_WINDOW_CLOSED',
      message: 'The offline registration window has closed (it closes 5 minutes before the start)',
    };

    it('is open until one millisecond before start − 5 minutes', async () => {
      h.clock.set(new Date(startAt.getTime() - 5 * MINUTE - 1));
      await save(actors.user('ann'));
      expect(await participants()).toBe(1);
    });

    it('is closed exactly at start − 5 minutes', async () => {
      h.clock.set(new Date(startAt.getTime() - 5 * MINUTE));
      expect(await failureOf(save(actors.user('ann')))).toEqual(closed);
      expect(await participants()).toBe(0);
    });

    it('is closed once the tournament is live or finished', async () => {
      h.clock.set(startAt);
      await h.module.scheduler.startDueTournaments();
      expect(await failureOf(save(actors.user('ann')))).toEqual(closed);
      await h.module.tournaments.markFinished(tournamentId);
      expect(await failureOf(save(actors.user('bob')))).toEqual(closed);
    });

    it('follows the start when an admin moves it', async () => {
      h.clock.set(new Date(startAt.getTime() - 4 * MINUTE));
      expect(await failureOf(save(actors.user('ann')))).toEqual(closed);
      await h.client.updateTournament({
        actor: actors.admin(),
        id: tournamentId,
        title: 'Later',
        startAt: timestampAt(new Date(startAt.getTime() + HOUR)),
      });
      await save(actors.user('ann'));
    });
  });

  describe('saving once', () => {
    it('refuses a second save with 409 and keeps the first choices', async () => {
      await save(
        actors.user('ann'),
        fullChoices(() => '1'),
      );
      expect(
        await failureOf(
          save(
            actors.user('ann'),
            fullChoices(() => '2'),
          ),
        ),
      ).toEqual(alreadyRegistered);
      expect(await participants()).toBe(1);
      const { choices } = await h.client.getOfflineChoices({
        actor: actors.user('ann'),
        tournamentId,
      });
      expect(new Set(choices.map((c) => c.selectedImageId))).toEqual(new Set(['1']));
    });

    it('lets exactly one of several parallel saves by one user succeed', async () => {
      const attempts = ['0', '1', '2', '3', '0', '1'].map((option, i) =>
        save(
          actors.user('ann', { deviceId: i % 2 === 0 ? 'phone' : 'laptop' }),
          fullChoices(() => option),
        ),
      );
      const results = await Promise.allSettled(attempts);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const result of results) {
        if (result.status === 'rejected') {
          expect(await failureOf(Promise.reject(result.reason))).toEqual(alreadyRegistered);
        }
      }
      expect(await participants()).toBe(1);
      const { choices } = await h.client.getOfflineChoices({
        actor: actors.user('ann'),
        tournamentId,
      });
      expect(choices).toHaveLength(TOTAL_ROUNDS);
    });
  });

  describe('one device, one participant', () => {
    it('refuses a second account on the same device', async () => {
      await save(actors.user('ann', { deviceId: 'shared-phone' }));
      expect(await failureOf(save(actors.user('bob', { deviceId: 'shared-phone' })))).toEqual(
        deviceUsed,
      );
      expect(await participants()).toBe(1);
      // From a device of their own, the second account may take part.
      await save(actors.user('bob', { deviceId: 'bobs-phone' }));
      expect(await participants()).toBe(2);
    });

    it('applies per tournament', async () => {
      const { tournament: other } = await h.client.createTournament({
        actor: actors.admin(),
        title: 'Saturday night',
        startAt: timestampAt(inFuture(h.clock, 2 * HOUR)),
      });
      await save(actors.user('ann', { deviceId: 'shared-phone' }));
      const saved = await save(
        actors.user('bob', { deviceId: 'shared-phone' }),
        fullChoices(),
        other!.id,
      );
      expect(saved.tournament).toMatchObject({ id: other!.id, participantCount: 1 });
      expect(await participants()).toBe(1);
      // Within the other tournament the device now backs bob, so ann cannot join it from there.
      expect(
        await failureOf(
          save(actors.user('ann', { deviceId: 'shared-phone' }), fullChoices(), other!.id),
        ),
      ).toEqual(deviceUsed);
    });

    it('does not tie a device to a user whose save was refused as a repeat', async () => {
      await save(actors.user('ann', { deviceId: 'phone' }));
      expect(await failureOf(save(actors.user('ann', { deviceId: 'tablet' })))).toEqual(
        alreadyRegistered,
      );
      await save(actors.user('bob', { deviceId: 'tablet' }));
      expect(await participants()).toBe(2);
    });

    it('lets exactly one of several accounts saving in parallel from one device succeed', async () => {
      const results = await Promise.allSettled(
        ['ann', 'bob', 'cat', 'dan'].map((userId) =>
          save(actors.user(userId, { deviceId: 'shared-phone' })),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const result of results) {
        if (result.status === 'rejected') {
          expect(await failureOf(Promise.reject(result.reason))).toEqual(deviceUsed);
        }
      }
      expect(await participants()).toBe(1);
    });

    it('does not apply to requests without a device id', async () => {
      await save(actors.user('ann', { deviceId: '' }));
      await save(actors.user('bob', { deviceId: '' }));
      expect(await participants()).toBe(2);
    });
  });

  it('answers "Tournament not found" for the choices of a deleted tournament', async () => {
    await save(actors.user('ann'));
    await h.client.deleteTournament({ actor: actors.admin(), id: tournamentId });
    expect(
      await failureOf(h.client.getOfflineChoices({ actor: actors.user('ann'), tournamentId })),
    ).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('offline choices on tournament.lifecycle (for the game engine)', () => {
  it('publishes OfflineChoicesSaved once saved, with the player and their 17 choices', async () => {
    const h = await startHarness();
    try {
      const { tournament } = await h.client.createTournament({
        actor: actors.admin(),
        title: 'Friday night',
        startAt: timestampAt(inFuture(h.clock, HOUR)),
      });
      const tournamentId = tournament!.id;
      await h.client.saveOfflineChoices({
        actor: actors.user('ann'),
        tournamentId,
        choices: fullChoices(),
      });
      await waitFor(
        () => h.events.some((event) => event.event.kind.case === 'offlineChoicesSaved'),
        'the offline choices event',
      );
      const saved = h.events.find((event) => event.event.kind.case === 'offlineChoicesSaved')!;
      expect(saved).toMatchObject({
        key: tournamentId,
        type: 'underdog.events.v1.OfflineChoicesSaved',
        id: `${tournamentId}:offline:ann`,
      });
      expect(saved.event.kind.value).toMatchObject({
        userId: 'ann',
        username: 'ann',
        deviceId: 'device-of-ann',
      });
      const { kind } = saved.event;
      if (kind.case !== 'offlineChoicesSaved') throw new Error('unexpected event');
      expect(kind.value.choices.map((choice) => choice.selectedImageId)).toEqual(
        fullChoices().map((choice) => choice.selectedImageId),
      );
    } finally {
      await h.stop();
    }
  });

  it('publishes it later, from the sweep, when the bus was down at the save', async () => {
    const state = { down: false };
    const h = await startHarness({
      bus: (bus) => ({
        ensureTopics: (specs) => bus.ensureTopics(specs),
        publish: async (topic, messages) => {
          if (state.down) throw new Error('broker unreachable');
          return bus.publish(topic, messages);
        },
        subscribe: (options) => bus.subscribe(options),
        partitionOf: (topic, key) => bus.partitionOf(topic, key),
        endOffset: (topic, partition) => bus.endOffset(topic, partition),
        readRange: (...args) => bus.readRange(...args),
        ping: () => bus.ping(),
        close: () => bus.close(),
      }),
    });
    try {
      const { tournament } = await h.client.createTournament({
        actor: actors.admin(),
        title: 'Friday night',
        startAt: timestampAt(inFuture(h.clock, HOUR)),
      });
      const tournamentId = tournament!.id;
      state.down = true;
      await h.client.saveOfflineChoices({
        actor: actors.user('bob'),
        tournamentId,
        choices: fullChoices(),
      });
      state.down = false;
      const offlineEvents = () =>
        h.events.filter((event) => event.event.kind.case === 'offlineChoicesSaved');
      expect(offlineEvents()).toHaveLength(0);
      h.clock.advance(HOUR);
      await h.module.outbox.sweep();
      await waitFor(() => offlineEvents().length === 1, 'the swept event');
      expect(offlineEvents()[0]!.id).toBe(`${tournamentId}:offline:bob`);
      // Published now: the next sweep has nothing to send.
      await h.module.outbox.sweep();
      await deliveredSoFar(h, tournamentId);
      expect(offlineEvents()).toHaveLength(1);
    } finally {
      await h.stop();
    }
  });
});
