// SigV4 module: placeholder until its first file lands.
