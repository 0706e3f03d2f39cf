// The service's entry (start.cts imports it; `npm start`, `gatehouse serve`): the wiring room runs it.
import { startService } from './boot/main.js';

startService();
