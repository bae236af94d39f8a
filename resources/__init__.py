"""Data files shipped inside the package as ``explorer.resources``: the demo conversations and the
app icon. A regular package (not a namespace) so ``importlib.resources`` finds it in a checkout, an
installed wheel and the bundle alike."""
