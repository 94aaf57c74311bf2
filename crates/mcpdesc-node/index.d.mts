// The ES module face of the package has the CommonJS module's exports, and the module
// itself as its default export.
export * from './index.js';
import * as mcpdesc from './index.js';
export default mcpdesc;
