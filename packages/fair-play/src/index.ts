export * from './signals';
export * from './rings';
export * from './detector';
export * from './draw';
export { coveringP, fisherCombine, tightestSubset } from './statistics';
export * from './verify-draw-command';
