/* eslint-disable no-console -- a command-line example: printing is its job */
// A tiny webhook receiver for the README tour: HTTPS on 127.0.0.1:9443 with the certificate
// made there, checking every request's Standard Webhooks signature with the webhook's secret.
//   WEBHOOK_SECRET=whsec_… node examples/receiver.mjs
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { Webhook } from 'standardwebhooks';

const webhook = new Webhook(process.env.WEBHOOK_SECRET);
const tls = { key: readFileSync('receiver.key'), cert: readFileSync('receiver.pem') };

createServer(tls, (req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    try {
      const event = webhook.verify(Buffer.concat(chunks).toString('utf8'), req.headers);
      // A custom header of the webhook's (docs/api.md 10.15), when it has one: not signed, but a credential of the receiver's own.
      const apiKey = req.headers['x-api-key'] === undefined ? '' : ` (x-api-key: ${req.headers['x-api-key']})`;
      console.log(`verified ${req.headers['webhook-id']}${apiKey}:`, JSON.stringify(event));
      res.writeHead(204).end();
    } catch (error) {
      console.log(`refused: ${error.message}`);
      res.writeHead(400).end();
    }
  });
}).listen(9443, '127.0.0.1', () => console.log('receiving on https://127.0.0.1:9443'));
