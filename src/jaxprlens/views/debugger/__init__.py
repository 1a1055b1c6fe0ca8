"""The stepping debugger: the widget, its state as data, its panel and frame rows, its recorded replay."""
