#!/bin/sh
# A club's own certificate authority and its broker's certificate, for MQTT over TLS (docs/hub.md, "TLS").
#   sh make-club-ca.sh DIR BROKER-NAME [BROKER-ADDRESS]
# writes DIR/club-ca.crt (give it to every board: [hub] ca_file), DIR/club-ca.key (keep it off the network),
# DIR/broker.crt and DIR/broker.key (for the broker's listener 8883). The certificate names the broker by
# BROKER-NAME (and BROKER-ADDRESS, an IP address, where the boards use that), as the boards' [hub] broker says.
set -eu
dir=$1; name=$2; address=${3:-}
mkdir -p "$dir"
umask 077
openssl req -x509 -newkey rsa:3072 -nodes -days 3650 -subj "/CN=Willughby club CA" \
    -keyout "$dir/club-ca.key" -out "$dir/club-ca.crt" 2>/dev/null
san="DNS:$name"
[ -n "$address" ] && san="$san,IP:$address"
openssl req -newkey rsa:2048 -nodes -subj "/CN=$name" -keyout "$dir/broker.key" -out "$dir/broker.csr" 2>/dev/null
printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\n' "$san" > "$dir/broker.ext"
openssl x509 -req -in "$dir/broker.csr" -CA "$dir/club-ca.crt" -CAkey "$dir/club-ca.key" -CAcreateserial \
    -days 825 -extfile "$dir/broker.ext" -out "$dir/broker.crt" 2>/dev/null
rm -f "$dir/broker.csr" "$dir/broker.ext"
chmod 644 "$dir/club-ca.crt" "$dir/broker.crt"
echo "made $dir/club-ca.crt, $dir/broker.crt and their keys"
