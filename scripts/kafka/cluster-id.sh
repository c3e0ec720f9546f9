#!/usr/bin/env bash
# Prints a fresh KRaft cluster id: 16 random bytes in URL-safe base64 without padding (22 characters).
# An id that starts with '-' would be read as an option by `kafka-storage format -t`, so it draws again,
# as Kafka's own Uuid.randomUuid() does.
set -euo pipefail
node -e "
  const { randomBytes } = require('node:crypto');
  let id;
  do id = randomBytes(16).toString('base64url'); while (id.startsWith('-'));
  console.log(id);
"
