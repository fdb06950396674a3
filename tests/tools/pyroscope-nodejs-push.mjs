// pyroscope-nodejs-push.mjs: sends a pprof profile the way Grafana's own
// Node.js client does, with @pyroscope/nodejs's PyroscopeApiExporter (its
// upload code, unchanged), so the push tests can compare flamepipe's request
// with a real client's for the same profile (tests/t7305).
//
//   node pyroscope-nodejs-push.mjs URL PROFILE.pb.gz APP FROM UNTIL RATE
//        [TOKEN_FILE|-] [TENANT|-]
import fs from 'node:fs';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';

const [url, file, app, from, until, rate, tokenFile, tenant] = process.argv.slice(2);
const dir = new URL('../pyroscope/', import.meta.url);
const { Profile } = createRequire(new URL('package.json', dir))('pprof-format');
const { PyroscopeApiExporter } = await import(new URL('node_modules/@pyroscope/nodejs/dist/esm/pyroscope-api-exporter.js', dir));

const profile = Profile.decode(zlib.gunzipSync(fs.readFileSync(file)));
const token = tokenFile && tokenFile !== '-' ? fs.readFileSync(tokenFile, 'utf8').split('\n')[0] : undefined;
const exporter = new PyroscopeApiExporter(app, token, url, { tenantID: tenant && tenant !== '-' ? tenant : undefined });
await exporter.export({ profile, startedAt: new Date(Number(from) * 1000), stoppedAt: new Date(Number(until) * 1000), sampleRate: Number(rate) });
