'use strict';
// boardgame.io's server with its PostgreSQL adapter (bgio-postgres), serving the
// peer's game on one port (socket API and lobby REST API).
//
//   node server.js PORT POSTGRES_URL

const { Server, Origins } = require('boardgame.io/server');
const { PostgresStore } = require('bgio-postgres');
const { DrawDiscard } = require('./game');

const [port, url] = process.argv.slice(2);
if (!port || !url) {
  process.stderr.write('usage: node server.js PORT POSTGRES_URL\n');
  process.exit(2);
}
const db = new PostgresStore(url, { logging: false });
const server = Server({ games: [DrawDiscard], db, origins: [Origins.LOCALHOST] });
server.run(Number(port), () => process.stderr.write(`peer: listening on ${port}\n`));
