import { Button, Card, Steps, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useGo } from '../../../app/useGo';
import { altOf, sampleImageOf } from '../../images/sampleImages';
import {
  DEMO_ROUND,
  demoByPopularity,
  demoOptions,
  demoPlayerCount,
  type DemoOption,
} from '../demo';

/** The demo's five steps, by catalog key (rules.step1Title, rules.step1Text, …). */
const STEPS = [1, 2, 3, 4, 5].map((n) => ({
  title: `rules.step${n}Title`,
  text: `rules.step${n}Text`,
}));
const STEP_MS = 2_500;

/** The animated five-step demo: the steps advance on their own (a static view with reduced motion). */
function Demo() {
  const { t } = useTranslation();
  const [step, setStep] = useState(0);
  useEffect(() => {
    const reduce = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
    if (reduce) return;
    const timer = setInterval(() => setStep((s) => (s + 1) % STEPS.length), STEP_MS);
    return () => clearInterval(timer);
  }, []);
  const round = step === 4 ? DEMO_ROUND + 1 : DEMO_ROUND;
  const options = demoOptions();
  return (
    <Card className="demo" title={<h2 className="card-title">{t('rules.demoTitle')}</h2>}>
      <Steps
        size="small"
        current={step}
        onChange={setStep}
        items={STEPS.map((s) => ({ title: t(s.title) }))}
        className="demo__steps"
      />
      <p className="demo__caption" aria-live="polite">
        <strong>{t('rules.step', { step: step + 1 })}</strong> {t(STEPS[step]!.text)}
      </p>
      <div className={`demo__grid demo__grid--step${step}`}>
        {[0, 1, 2, 3].map((option) => {
          const image = sampleImageOf(round, option);
          const { votes, percentage, isWinner } = options[option]!;
          const winner = isWinner && (step === 3 || step === 2);
          return (
            <figure
              key={option}
              className={`demo__option${winner && step === 3 ? ' demo__option--winner' : ''}`}
            >
              <img src={image.url} alt={altOf(image)} width={120} height={120} />
              <figcaption>
                {step === 1
                  ? t('rules.thinking')
                  : step === 2 || step === 3
                    ? t('rules.demoVotes', { votes, percentage })
                    : altOf(image)}
                {winner && step === 3 ? t('rules.winner') : ''}
              </figcaption>
            </figure>
          );
        })}
      </div>
    </Card>
  );
}

/** The worked example: the demo round's own votes, most popular first. */
function Example() {
  const { t } = useTranslation();
  const [first, second, third, least] = demoByPopularity() as [
    DemoOption,
    DemoOption,
    DemoOption,
    DemoOption,
  ];
  return t('rules.exampleText', {
    players: demoPlayerCount(),
    round: DEMO_ROUND,
    first: first.name,
    firstVotes: first.votes,
    second: second.name,
    secondVotes: second.votes,
    third: third.name,
    thirdVotes: third.votes,
    least: least.name,
    leastVotes: least.votes,
  });
}

/** Spec §2 Rules: the demo, strategy, offline-mode and example cards, Join Tournament. */
export function RulesPage() {
  const { t } = useTranslation();
  const go = useGo();
  return (
    <div className="page">
      <Typography.Title level={1} className="page-title">
        {t('rules.title')}
      </Typography.Title>
      <Typography.Paragraph>{t('rules.intro')}</Typography.Paragraph>
      <Demo />
      <div className="card-grid">
        <Card title={<h2 className="card-title">{t('rules.strategy')}</h2>}>
          <ul className="plain-list">
            <li>{t('rules.strategy1')}</li>
            <li>{t('rules.strategy2')}</li>
            <li>{t('rules.strategy3')}</li>
          </ul>
        </Card>
        <Card title={<h2 className="card-title">{t('rules.offline')}</h2>}>
          <Typography.Paragraph>{t('rules.offlineText')}</Typography.Paragraph>
        </Card>
        <Card title={<h2 className="card-title">{t('rules.example')}</h2>}>
          <Typography.Paragraph>
            <Example />
          </Typography.Paragraph>
        </Card>
      </div>
      <Button type="primary" size="large" onClick={() => go('/')} className="join-button">
        {t('rules.join')}
      </Button>
    </div>
  );
}
