import t from '../../helpers/tap.js';
import { newWebhookSecret, signature, signedHeaders } from '../../../server/domain/webhooks/signing.js';

t.test('signatures match the Standard Webhooks example, so any of its libraries verifies them', async (t) => {
  // The scheme's published example: secret, message id, timestamp, payload and the signature.
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  t.equal(signature(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}'), 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  t.same(signedHeaders(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}'), {
    'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    'webhook-timestamp': '1614265330',
    'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  });
});

t.test('generated secrets are whsec_ and 32 random bytes', async (t) => {
  const a = newWebhookSecret();
  t.match(a, /^whsec_[A-Za-z0-9+/]{43}=$/);
  t.equal(Buffer.from(a.slice(6), 'base64').length, 32);
  t.not(a, newWebhookSecret());
});
