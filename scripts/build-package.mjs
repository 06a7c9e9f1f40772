import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

// Builds the publishable package in the current directory with tsdown, from its tsdown.config.mjs.
//
// tsdown declares Node >= 22.18; on Node 20 (this project's floor) the only thing it misses is
// Promise.withResolvers, added here. Drop this shim once Node 22 is the floor.
Promise.withResolvers ??= function withResolvers() {
  let resolve;
  let reject;
  const promise = new this((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

// tsdown is each package's own dev dependency: resolve it from the package being built.
const here = pathToFileURL(path.join(process.cwd(), 'package.json'));
const { build } = await import(pathToFileURL(createRequire(here).resolve('tsdown')).href);
const { default: config } = await import(new URL('tsdown.config.mjs', here).href);
for (const options of [config].flat()) await build({ ...options, config: false });
