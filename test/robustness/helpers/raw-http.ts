// The raw-socket client lives beside the soak, which drives slow clients with it too.
export * from '../../../src/soak/raw-http.js';
