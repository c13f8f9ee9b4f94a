// HTTP1 module: placeholder until its first file lands.
