export * from './images';
export * from './rounds';
export * from './timings';
export * from './visibility';
export * from './vote-retry';
export * from './reconnect';
