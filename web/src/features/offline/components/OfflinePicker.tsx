import { useTranslation } from 'react-i18next';
import { CheckCircleFilled } from '@ant-design/icons';
import { useMutation, useQuery } from '@apollo/client';
import { Button, Card, Progress, Tag, Typography } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { errorCodeOf } from '../../../app/errors';
import { logFailure } from '../../../app/log';
import { useToast } from '../../../app/toast';
import {
  AdvertisementsDocument,
  HasOfflineChoicesDocument,
  SaveOfflineChoicesDocument,
  TournamentsDocument,
} from '../../../gql/operations';
import { AdView, type Ad } from '../../ads/components/AdView';
import { altOf, sampleImageOf } from '../../images/sampleImages';
import { TOTAL_ROUNDS } from '@underdog/rules';
import { i18n } from '../../../app/i18n';
import type { Tournament } from '../../tournaments/display';
import {
  choicesInput,
  isComplete,
  nextOpenRound,
  progressOf,
  withChoice,
  type Choices,
} from '../choices';
import { AlreadyRegistered } from './AlreadyRegistered';

/** The codes of a save refused because the session is gone (spec §8's not-logged-in text). */
const SIGNED_OUT_CODES = new Set(['UNAUTHENTICATED', 'NO_SESSION']);

/** Spec §9: the completion screen submits after 0.5 s. */
export const SUBMIT_DELAY_MS = 500;

function OptionImage({ round, option }: { round: number; option: number }) {
  const image = sampleImageOf(round, option);
  const [failed, setFailed] = useState(false);
  if (failed) {
    return (
      <span className="picker__error" role="img" aria-label={`Error: ${option + 1}`}>
        Error: {option + 1}
      </span>
    );
  }
  return (
    <img
      src={image.url}
      alt={altOf(image)}
      onError={() => setFailed(true)}
      width={160}
      height={160}
    />
  );
}

/**
 * Spec §2/§4: the 17-round offline picker. One pick per round (re-picking replaces it), an ad
 * after each pick when ads exist, the completion screen, then the save after 0.5 s.
 */
export function OfflinePicker({
  tournament,
  onDone,
  onCancel,
  screen = 'offline',
}: {
  /**
   * Where the picker is: the offline screen's failure text names the offline choices, the play
   * screen's is the shorter one (spec §8: 'another screen').
   */
  screen?: 'offline' | 'game';
  tournament: Tournament;
  onDone: () => void;
  onCancel: () => void;
}) {
  const [choices, setChoices] = useState<Choices>(new Map());
  const [round, setRound] = useState(1);
  const [ad, setAd] = useState<Ad | undefined>();
  const { data: adsData, error: adsError } = useQuery(AdvertisementsDocument, {
    variables: { position: 'between_rounds' },
  });
  // Spec §8: a failed ad fetch is logged; the picking goes on without ads.
  useEffect(() => {
    if (adsError) logFailure(i18n.t('offline.adsFetchFailed', { lng: 'en' }), adsError);
  }, [adsError]);
  // Saved from elsewhere meanwhile (another tab): the server says so, and so does the screen.
  const [alreadyRegistered, setAlreadyRegistered] = useState(false);
  const ads = useMemo(() => adsData?.advertisements ?? [], [adsData]);
  const [save] = useMutation(SaveOfflineChoicesDocument, {
    refetchQueries: [
      TournamentsDocument,
      { query: HasOfflineChoicesDocument, variables: { tournamentId: tournament.id } },
    ],
  });
  const toast = useToast();
  const { t } = useTranslation();
  const complete = isComplete(choices) && !ad;

  useEffect(() => {
    if (!complete) return;
    const timer = setTimeout(() => {
      save({ variables: { tournamentId: tournament.id, choices: choicesInput(choices) } })
        .then(() => {
          toast({
            title: t('offline.success'),
            description: t('offline.successText'),
          });
          onDone();
        })
        .catch((error: unknown) => {
          const code = errorCodeOf(error);
          if (code === 'ALREADY_REGISTERED') {
            setAlreadyRegistered(true);
            return;
          }
          toast({
            title: t('offline.error'),
            description: SIGNED_OUT_CODES.has(code ?? '')
              ? t('offline.mustBeLoggedIn')
              : screen === 'game'
                ? t('offline.errorTextShort')
                : t('offline.errorText'),
            variant: 'destructive',
          });
        });
    }, SUBMIT_DELAY_MS);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- submit once when complete
  }, [complete]);

  useEffect(() => {
    if (!ad) return;
    const timer = setTimeout(() => setAd(undefined), Math.max(1, ad.duration) * 1000);
    return () => clearTimeout(timer);
  }, [ad]);

  const pick = (option: number) => {
    const next = withChoice(choices, round, option);
    setChoices(next);
    const following = nextOpenRound(next, round);
    if (following !== undefined) setRound(following);
    if (ads.length > 0) setAd(ads[Math.floor(Math.random() * ads.length)]);
  };

  const { done, percent } = progressOf(choices);
  if (alreadyRegistered) return <AlreadyRegistered onBack={onCancel} />;
  if (complete) {
    return (
      <Card className="picker picker--complete">
        <CheckCircleFilled className="picker__done-icon" aria-hidden="true" />
        <Typography.Title level={2}>{t('offline.complete')}</Typography.Title>
        <Typography.Paragraph>{t('offline.allComplete')}</Typography.Paragraph>
        <Typography.Paragraph className="muted">{t('offline.saving')}</Typography.Paragraph>
      </Card>
    );
  }
  if (ad) {
    return (
      <Card className="picker picker--ad" title={<Tag color="gold">{t('game.advertisement')}</Tag>}>
        <Typography.Title level={3}>{ad.title}</Typography.Title>
        <AdView ad={ad} />
        <Button type="primary" onClick={() => setAd(undefined)} className="spaced">
          {t('offline.continue')}
        </Button>
      </Card>
    );
  }
  const selected = choices.get(round);
  return (
    <Card className="picker">
      <Typography.Title level={2} className="page-title">
        {t('offline.participation')}
      </Typography.Title>
      <div className="muted">{tournament.title}</div>
      <div className="picker__head">
        <strong>{t('offline.roundOf', { round })}</strong>
        <Tag color={selected === undefined ? 'default' : 'green'}>
          {selected === undefined ? t('offline.pending') : t('offline.selected')}
        </Tag>
      </div>
      <Progress percent={percent} aria-label={t('offline.roundsChosen')} />
      <div className="muted">{t('offline.percent', { done, percent })}</div>
      <Typography.Paragraph className="picker__instruction">
        {t('offline.instruction')}
      </Typography.Paragraph>
      {round === TOTAL_ROUNDS && (
        <Typography.Paragraph strong>{t('offline.finalRound')}</Typography.Paragraph>
      )}
      <div className="picker__grid">
        {[0, 1, 2, 3].map((option) => (
          <button
            key={`${round}-${option}`}
            type="button"
            className={`picker__option${selected === option ? ' picker__option--selected' : ''}`}
            aria-pressed={selected === option}
            aria-label={t('offline.option', {
              option: option + 1,
              alt: altOf(sampleImageOf(round, option)),
            })}
            onClick={() => pick(option)}
          >
            <OptionImage round={round} option={option} />
          </button>
        ))}
      </div>
      <div className="picker__nav">
        <Button disabled={round === 1} onClick={() => setRound(round - 1)}>
          {t('offline.previous')}
        </Button>
        <Button disabled={round === TOTAL_ROUNDS} onClick={() => setRound(round + 1)}>
          {t('offline.next')}
        </Button>
      </div>
      <div className="picker__nav">
        <Button
          onClick={() => {
            setChoices(new Map());
            setRound(1);
          }}
        >
          {t('offline.resetAll')}
        </Button>
        <Button danger onClick={onCancel}>
          {t('offline.cancel')}
        </Button>
      </div>
    </Card>
  );
}
