// Preloaded (`node --require`) into a built process under test: it kills the process with
// SIGKILL at the moment it is about to send the statement whose text contains DIE_BEFORE, once
// it has sent one containing DIE_AFTER: a crash in the middle of a transaction, between two of
// its statements. It watches the statements where they leave the process: MySQL's go over the
// socket as text (prepared or not, the text goes out the first time on a connection), SQLite's
// through better-sqlite3's prepare (it is outside the bundle, so this module is the one loaded).
'use strict';
const net = require('node:net');

const after = process.env.DIE_AFTER;
const before = process.env.DIE_BEFORE;
let armed = false;

function sending(text) {
  if (!armed && text.includes(after)) armed = true;
  else if (armed && text.includes(before)) process.kill(process.pid, 'SIGKILL');
}

if (after && before) {
  const write = net.Socket.prototype.write;
  net.Socket.prototype.write = function (chunk, ...rest) {
    if (Buffer.isBuffer(chunk)) sending(chunk.toString('latin1'));
    else if (typeof chunk === 'string') sending(chunk);
    return write.call(this, chunk, ...rest);
  };
  const Database = require('better-sqlite3');
  const prepare = Database.prototype.prepare;
  Database.prototype.prepare = function (sql, ...rest) {
    sending(sql);
    return prepare.call(this, sql, ...rest);
  };
}
