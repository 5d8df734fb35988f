export {
  createStandalone,
  listeningUrl,
  type Standalone,
  type StandaloneOptions,
} from './standalone';
