// The ES module face of the package: the CommonJS module's one instance (one engine cache,
// one set of error classes, so `instanceof` holds across `import` and `require`).
import mcpdesc from './index.js';

export const {
  validate,
  validateAsync,
  validateFile,
  validateFileAsync,
  clearEngineCache,
  Engine,
  Report,
  McpdescError,
  RuleLoadError,
  ConfigurationError,
  version,
  runCli,
} = mcpdesc;

export default mcpdesc;
