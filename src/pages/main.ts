/**
 * The pages' one script, bundled by esbuild (`assets.ts`). Each page's HTML names
 * itself in `<body data-page>`; the script wires that page's forms to the typed
 * account client.
 */
import { showAccountPages } from './account-pages.js';
import { showSettings } from './settings.js';

// Cookies are not isolated by port: over plain HTTP the page says so where its user sees it (issue 33), as the greeting does.
const plainHttp = document.getElementById('plain-http');
if (plainHttp && location.protocol === 'http:') plainHttp.hidden = false;

const page = document.body.dataset['page'];
if (page === 'settings') void showSettings();
else if (page === 'sign-in' || page === 'sign-up') void showAccountPages(page);
