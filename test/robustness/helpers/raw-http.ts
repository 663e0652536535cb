// The raw-socket client lives beside the soak, which drives slow clients with it too.
export * from '../../../tools/soak/raw-http.js';
