// `node --import ./register.mjs ...`: records the modules the program loads (hooks.mjs).
import { register } from 'node:module';

register(new URL('./hooks.mjs', import.meta.url));
