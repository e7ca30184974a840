import CSoxr
