export * from './disqualification';
export * from './elimination';
export * from './keys';
export * from './scripts';
export * from './snapshot';
export * from './state';
