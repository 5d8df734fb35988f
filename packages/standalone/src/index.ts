export { createStandalone, type Standalone, type StandaloneOptions } from './standalone';
