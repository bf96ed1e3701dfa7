#!/bin/sh
# Makes the client certificates of the mutual TLS tests (docs/api.md 10.16) with openssl, in this
# folder: a CA of their own (which the test receiver that asks for a client certificate trusts;
# its key is thrown away), and signed by it:
#   client.pem, client.key     EC P-256, valid for 100 years: the one a webhook presents
#   rsa.pem, rsa.key           RSA 2048, valid for 100 years
#   rsa1024.pem, rsa1024.key   RSA 1024, valid for 100 years: a key too short
#   rsa8192.key                RSA 8192, no certificate: a key too long
#   rsa-large-exponent.key     RSA 2048 with the exponent 2^32 + 15, no certificate
#   expired.pem                client.key's, valid in 2020 only
#   future.pem                 client.key's, valid from 2100 only
# Run it again only to replace them: sh test/support/tls/client/make.sh
set -eu
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/db" && touch "$work/db/index.txt" && echo 1000 > "$work/db/serial"
cat > "$work/ca.cnf" <<CNF
[ ca ]
default_ca = test
[ test ]
database = $work/db/index.txt
serial = $work/db/serial
new_certs_dir = $work/db
default_md = sha256
policy = any
unique_subject = no
x509_extensions = client
[ any ]
commonName = supplied
organizationName = optional
[ client ]
basicConstraints = CA:FALSE
keyUsage = digitalSignature
extendedKeyUsage = clientAuth
CNF
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/ca.key" -out client-ca.pem \
  -subj "/CN=platform-api test client CA" -days 36500 2>/dev/null
sign() { # name key-file subject start end
  openssl req -new -key "$2" -subj "$3" -out "$work/$1.csr"
  openssl ca -batch -config "$work/ca.cnf" -cert client-ca.pem -keyfile "$work/ca.key" -in "$work/$1.csr" -out "$1.pem" \
    -startdate "$4" -enddate "$5" -notext 2>/dev/null
}
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out client.key
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out rsa.key 2>/dev/null
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:1024 -out rsa1024.key 2>/dev/null
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:8192 -out rsa8192.key 2>/dev/null
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -pkeyopt rsa_keygen_pubexp:4294967311 -out rsa-large-exponent.key 2>/dev/null
sign client client.key "/O=Acme/CN=webhooks.acme.test" 20260101000000Z 21251231000000Z
sign rsa rsa.key "/CN=rsa.acme.test" 20260101000000Z 21251231000000Z
sign rsa1024 rsa1024.key "/CN=rsa1024.acme.test" 20260101000000Z 21251231000000Z
sign expired client.key "/CN=expired.acme.test" 20200101000000Z 20210101000000Z
sign future client.key "/CN=future.acme.test" 21000101000000Z 21100101000000Z
