package bank

func TestNoImport(t *testing.T) {}
