export * from './infrastructure';
export * from './service';
export * from './topics';
