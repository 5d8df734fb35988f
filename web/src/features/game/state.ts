// The game screen's state, in three modules: the reducer over the gateway's snapshot and events
// with the offline picks (`game-reducer.ts`), what the screen derives from it (`game-view.ts`),
// and the toasts the events announce (`game-toasts.ts`).
export * from './game-reducer';
export * from './game-view';
export * from './game-toasts';
