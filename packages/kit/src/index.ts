export * from './access';
export * from './config';
export * from './errors';
export * from './http';
export * from './lifecycle';
export * from './logger';
export * from './metrics';
export * from './request-context';
